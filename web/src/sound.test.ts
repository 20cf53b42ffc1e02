import { afterEach, describe, expect, it, vi } from "vitest";
import { TONE, type ToneContext, playTone, setSoundOn, soundOn, turnAnnouncer } from "./sound";

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (i) => [...items.keys()][i] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, value),
  };
}

afterEach(() => vi.unstubAllGlobals());

describe("the turn's sound", () => {
  it("is off until chosen, and the choice is remembered", () => {
    vi.stubGlobal("localStorage", memoryStorage());
    expect(soundOn()).toBe(false);
    setSoundOn(true);
    expect(soundOn()).toBe(true);
    expect(localStorage.getItem("rummy.sound")).toBe("on");
    setSoundOn(false);
    expect(soundOn()).toBe(false);
  });

  it("is off when the browser keeps no storage", () => {
    vi.stubGlobal("localStorage", undefined);
    expect(soundOn()).toBe(false);
    expect(() => setSoundOn(true)).not.toThrow();
  });

  it("sounds when a turn of the reader's begins, not on the first look, their own draw or a re-render", () => {
    const play = vi.fn();
    const note = turnAnnouncer(play);
    note("g1", { round: 1, phase: "draw" }); // the page opened on my turn: the title says it
    note("g1", { round: 1, phase: "draw" });
    note("g1", { round: 1, phase: "play" }); // I drew
    expect(play).not.toHaveBeenCalled();
    note("g1", null);
    note("g1", null);
    note("g1", { round: 1, phase: "draw" }); // the other player moved
    expect(play).toHaveBeenCalledTimes(1);
    note("g1", { round: 1, phase: "draw" }); // the same turn rendered again
    note("g1", { round: 1, phase: "play" });
    expect(play).toHaveBeenCalledTimes(1);
    // My discard answered with the bots' turns already played: my turn again at once.
    note("g1", { round: 1, phase: "draw" });
    expect(play).toHaveBeenCalledTimes(2);
    // A new round whose first move is mine (a first turn without a draw starts in play).
    note("g1", { round: 2, phase: "play" });
    expect(play).toHaveBeenCalledTimes(3);
    note("g2", null);
    note("g2", { round: 1, phase: "draw" });
    expect(play).toHaveBeenCalledTimes(4);
  });

  it("makes its notes with WebAudio, each started and stopped, quiet and short", () => {
    const started: number[] = [];
    const stopped: number[] = [];
    const frequencies: number[] = [];
    const peaks: number[] = [];
    const node = { connect: (next: unknown) => next };
    const ctx = {
      currentTime: 10,
      destination: {},
      createOscillator: () => ({
        ...node,
        type: "",
        frequency: { setValueAtTime: (f: number) => frequencies.push(f) },
        start: (at: number) => started.push(at),
        stop: (at: number) => stopped.push(at),
      }),
      createGain: () => ({
        ...node,
        gain: { setValueAtTime: () => undefined, exponentialRampToValueAtTime: (v: number) => peaks.push(v) },
      }),
    } as unknown as ToneContext;
    playTone(ctx);
    expect(frequencies).toEqual(TONE.map(([f]) => f));
    expect(started).toEqual(TONE.map(([, at]) => 10 + at));
    for (const [i, at] of stopped.entries()) expect(at - (started[i] ?? 0)).toBeLessThan(0.5);
    expect(Math.max(...peaks)).toBeLessThanOrEqual(0.2);
  });
});
