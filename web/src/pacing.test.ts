import { describe, expect, it } from "vitest";
import { Pacer, type Schedule } from "./pacing";

/** A clock the test moves by hand. */
function manualClock(): { schedule: Schedule; advance: (ms: number) => void } {
  let now = 0;
  let timers: { at: number; run: () => void }[] = [];
  return {
    schedule: (run, ms) => {
      const timer = { at: now + ms, run };
      timers.push(timer);
      return () => {
        timers = timers.filter((t) => t !== timer);
      };
    },
    advance: (ms) => {
      const until = now + ms;
      for (;;) {
        const due = timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
        if (due === undefined) break;
        timers = timers.filter((t) => t !== due);
        now = due.at;
        due.run();
      }
      now = until;
    },
  };
}

function pacer(interval: number) {
  const clock = manualClock();
  const shown: string[] = [];
  const p = new Pacer<string>({
    interval,
    onShow: (item) => shown.push(item),
    schedule: clock.schedule,
  });
  return { p, clock, shown };
}

describe("pacing", () => {
  it("shows a bot's turn one move per interval, the first at once", () => {
    const { p, clock, shown } = pacer(400);
    p.push(["draw", "meld", "discard"]);
    expect(shown).toEqual(["draw"]);
    expect(p.pending).toBe(2);
    clock.advance(399);
    expect(shown).toEqual(["draw"]);
    clock.advance(1);
    expect(shown).toEqual(["draw", "meld"]);
    clock.advance(400);
    expect(shown).toEqual(["draw", "meld", "discard"]);
    expect(p.pending).toBe(0);
  });

  it("holds an item that arrives within the gap after the last one", () => {
    const { p, clock, shown } = pacer(400);
    p.push(["a"]);
    clock.advance(100);
    p.push(["b"]);
    expect(shown).toEqual(["a"]);
    clock.advance(300);
    expect(shown).toEqual(["a", "b"]);
    clock.advance(1000);
    p.push(["c"]);
    expect(shown).toEqual(["a", "b", "c"]); // idle again: at once
  });

  it("skips to the end, and shows everything at once with no interval or when asked", () => {
    const { p, clock, shown } = pacer(400);
    p.push(["a", "b", "c"]);
    p.skip();
    expect(shown).toEqual(["a", "b", "c"]);
    clock.advance(2000);
    expect(shown).toEqual(["a", "b", "c"]);
    p.push(["history", "more"], { now: true });
    expect(shown.slice(3)).toEqual(["history", "more"]);

    const reduced = pacer(0);
    reduced.p.push(["x", "y"]);
    expect(reduced.shown).toEqual(["x", "y"]);
  });

  it("holds back only the newest moves of a long batch", () => {
    const clock = manualClock();
    const shown: number[] = [];
    const p = new Pacer<number>({
      interval: 400,
      maxWaiting: 3,
      onShow: (item) => shown.push(item),
      schedule: clock.schedule,
    });
    p.push([1, 2, 3, 4, 5, 6, 7]);
    expect(shown).toEqual([1, 2, 3, 4, 5]); // 4 at once, then the first of the last three
    expect(p.pending).toBe(2);
    clock.advance(800);
    expect(shown).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("drops what waits when stopped", () => {
    const { p, clock, shown } = pacer(400);
    p.push(["a", "b"]);
    p.stop();
    clock.advance(1000);
    expect(shown).toEqual(["a"]);
    expect(p.pending).toBe(0);
  });
});
