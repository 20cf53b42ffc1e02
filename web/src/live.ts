/**
 * Following a game: the events after the last one seen, long-polled
 * (`GET /games/{id}/events?after=N&wait=S`); every batch is handed on, and the
 * caller reloads its view. The fetch under the client already waits out an
 * unreachable service (and `Retry-After`), so this loop only asks again.
 */

import type { GameEvent } from "./api/client";

/** One long-poll: the events after `after`, waiting up to `wait` seconds for the first. */
export type PollEvents = (
  after: number,
  wait: number,
  signal: AbortSignal,
) => Promise<{ events: GameEvent[]; last: number }>;

export interface FollowOptions {
  poll: PollEvents;
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
  while (!signal.aborted) {
    let batch: { events: GameEvent[]; last: number };
    try {
      batch = await options.poll(after, wait, signal);
    } catch {
      if (signal.aborted) return;
      await pause(2000, signal);
      continue;
    }
    if (signal.aborted) return;
    const fresh = batch.events.filter((event) => event.seq > after);
    if (fresh.length > 0) {
      after = Math.max(after, batch.last, ...fresh.map((event) => event.seq));
      options.onEvents(fresh);
    }
    if (options.done?.() === true) return;
  }
}
