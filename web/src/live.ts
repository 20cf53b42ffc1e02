/**
 * Following a game: the events after the last one seen, pushed by the stream
 * (`GET /games/{id}/stream`, Server-Sent Events) when the service offers it, else
 * long-polled (`GET /games/{id}/events?after=N&wait=S`); every batch is handed on,
 * and the caller reloads its view. The fetch under the long-poll waits out an
 * unreachable service (and `Retry-After`), so after a stream fails the loop
 * long-polls once (which waits until the service answers) and streams again.
 */

import type { GameEvent } from "./api/client";

/** One long-poll: the events after `after`, waiting up to `wait` seconds for the first. */
export type PollEvents = (
  after: number,
  wait: number,
  signal: AbortSignal,
) => Promise<{ events: GameEvent[]; last: number }>;

/**
 * Open the stream after `after`: batches of events as they arrive, ending when the
 * server closes it; `null` when the service refuses a stream (then long-poll).
 */
export type OpenStream = (
  after: number,
  signal: AbortSignal,
) => Promise<AsyncIterable<GameEvent[]> | null>;

export interface FollowOptions {
  poll: PollEvents;
  stream?: OpenStream;
  after: number;
  onEvents: (events: GameEvent[]) => void;
  /** Asked after each batch: stop following (the game ended). */
  done?: () => boolean;
  wait?: number;
  /** Waits after an unexpected failure before asking again. */
  pause?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Follow until `signal` aborts or `done()`; resolves then. */
export async function follow(options: FollowOptions, signal: AbortSignal): Promise<void> {
  const wait = options.wait ?? 25;
  const pause =
    options.pause ??
    ((ms: number, s: AbortSignal) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        s.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve();
        });
      }));
  let after = options.after;
  let streaming = options.stream !== undefined;
  /** Hand on the events not seen yet; true when following should stop. */
  const take = (events: GameEvent[], last: number): boolean => {
    const fresh = events.filter((event) => event.seq > after);
    if (fresh.length > 0) {
      after = Math.max(after, last, ...fresh.map((event) => event.seq));
      options.onEvents(fresh);
    }
    return options.done?.() === true;
  };
  while (!signal.aborted) {
    if (streaming && options.stream !== undefined) {
      try {
        const batches = await options.stream(after, signal);
        if (batches === null) {
          streaming = false; // refused: long-poll from now on
          continue;
        }
        for await (const events of batches) {
          if (signal.aborted) return;
          if (take(events, 0)) return;
        }
        continue; // closed by the server: open it again after the last event
      } catch {
        if (signal.aborted) return;
        // Failed: long-poll once (it waits for the service), then stream again.
      }
    }
    let batch: { events: GameEvent[]; last: number };
    try {
      batch = await options.poll(after, wait, signal);
    } catch {
      if (signal.aborted) return;
      await pause(2000, signal);
      continue;
    }
    if (signal.aborted) return;
    if (take(batch.events, batch.last)) return;
  }
}

/**
 * Parse a text/event-stream: `feed(chunk)` returns the `data` of each complete
 * message (comments such as heartbeats, `id:` and `retry:` lines are not data).
 */
export class SseParser {
  private buffer = "";

  feed(chunk: string): string[] {
    this.buffer += chunk.replace(/\r\n?/g, "\n");
    const messages: string[] = [];
    let end = this.buffer.indexOf("\n\n");
    while (end >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const data = block
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""));
      if (data.length > 0) messages.push(data.join("\n"));
      end = this.buffer.indexOf("\n\n");
    }
    return messages;
  }
}

/** The batches of events of a text/event-stream body, one batch per chunk read. */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<GameEvent[]> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const events = parser.feed(decoder.decode(value, { stream: true })).map((data) => JSON.parse(data) as GameEvent);
      if (events.length > 0) yield events;
    }
  } finally {
    reader.releaseLock();
  }
}
