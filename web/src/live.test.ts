import { describe, expect, it } from "vitest";
import type { GameEvent } from "./api/client";
import { SseParser, follow, sseEvents } from "./live";

const event = (seq: number, type = "discarded"): GameEvent =>
  ({ seq, version: seq, type, at: "" }) as GameEvent;

describe("follow", () => {
  it("asks for the events after the last one seen and hands each batch on", async () => {
    const batches = [[event(5), event(6)], [], [event(7, "game_ended")]];
    const asked: number[] = [];
    const seen: number[][] = [];
    let finished = false;
    const controller = new AbortController();
    await follow(
      {
        after: 4,
        poll: async (after) => {
          asked.push(after);
          const events = batches.shift() ?? [];
          return { events, last: events.at(-1)?.seq ?? after };
        },
        onEvents: (events) => {
          seen.push(events.map((e) => e.seq));
          finished = events.some((e) => e.type === "game_ended");
        },
        done: () => finished,
      },
      controller.signal,
    );
    expect(asked).toEqual([4, 6, 6]);
    expect(seen).toEqual([[5, 6], [7]]);
  });

  it("keeps asking after a failed poll", async () => {
    let calls = 0;
    const controller = new AbortController();
    await follow(
      {
        after: 0,
        poll: async () => {
          calls += 1;
          if (calls === 1) throw new Error("unreachable");
          return { events: [event(1)], last: 1 };
        },
        onEvents: () => controller.abort(),
        pause: async () => undefined,
      },
      controller.signal,
    );
    expect(calls).toBe(2);
  });
});

describe("the stream", () => {
  it("parses messages split across chunks, skipping heartbeats and retry lines", () => {
    const parser = new SseParser();
    expect(parser.feed("retry: 1000\n\n: heartbeat\n\nid: 7\ndata: {\"seq\"")).toEqual([]);
    expect(parser.feed(":7}\n\nid: 8\r\ndata: {\"seq\":8}\r\n\r\n")).toEqual(['{"seq":7}', '{"seq":8}']);
  });

  it("reads events from a stream body", async () => {
    const text = 'retry: 1000\n\nid: 1\ndata: {"seq":1,"version":1,"type":"drew","at":""}\n\n';
    const body = new Response(text).body as ReadableStream<Uint8Array>;
    const batches: number[][] = [];
    for await (const events of sseEvents(body)) batches.push(events.map((e) => e.seq));
    expect(batches).toEqual([[1]]);
  });

  it("streams, reopens after the last event, and long-polls once when the stream fails", async () => {
    const opened: number[] = [];
    const polled: number[] = [];
    const seen: number[] = [];
    const controller = new AbortController();
    async function* batches(...seqs: number[]): AsyncGenerator<GameEvent[]> {
      yield seqs.map((seq) => event(seq));
    }
    const streams = [
      () => batches(1, 2),
      () => {
        throw new TypeError("network");
      },
      () => batches(4, 5, 6),
    ];
    await follow(
      {
        after: 0,
        stream: async (after) => {
          opened.push(after);
          return (streams.shift() ?? (() => null))();
        },
        poll: async (after) => {
          polled.push(after);
          return { events: [event(3)], last: 3 };
        },
        onEvents: (events) => seen.push(...events.map((e) => e.seq)),
        done: () => seen.includes(6),
      },
      controller.signal,
    );
    expect(opened).toEqual([0, 2, 3]);
    expect(polled).toEqual([2]);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("long-polls from then on when the service refuses a stream", async () => {
    const polled: number[] = [];
    let opened = 0;
    await follow(
      {
        after: 0,
        stream: async () => {
          opened += 1;
          return null;
        },
        poll: async (after) => {
          polled.push(after);
          return { events: [event(after + 1)], last: after + 1 };
        },
        onEvents: () => undefined,
        done: () => polled.length === 3,
      },
      new AbortController().signal,
    );
    expect(opened).toBe(1);
    expect(polled).toEqual([0, 1, 2]);
  });
});
