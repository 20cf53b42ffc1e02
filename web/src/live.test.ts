import { describe, expect, it } from "vitest";
import type { GameEvent } from "./api/client";
import { follow } from "./live";

const event = (seq: number, type: GameEvent["type"] = "discarded"): GameEvent => ({
  seq,
  version: seq,
  type,
  at: "",
});

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
