/**
 * The optional sound of the reader's turn: off unless chosen, the choice kept in
 * localStorage, the tone made by WebAudio (two short notes; no sound file to fetch).
 */

import { useState } from "preact/hooks";
import { t } from "./i18n";

const SOUND_KEY = "rummy.sound";

function store(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** Whether the reader chose the sound (off by default). */
export function soundOn(): boolean {
  return store()?.getItem(SOUND_KEY) === "on";
}

export function setSoundOn(on: boolean): void {
  store()?.setItem(SOUND_KEY, on ? "on" : "off");
}

/** The part of WebAudio the tone uses (a fake one in the tests). */
export interface ToneContext {
  readonly currentTime: number;
  readonly destination: AudioNode;
  createOscillator(): OscillatorNode;
  createGain(): GainNode;
}

/** Notes of the tone: frequency (Hz) and start (s after now). */
export const TONE: readonly (readonly [number, number])[] = [
  [660, 0],
  [880, 0.16],
];
const NOTE_SECONDS = 0.22;

/** Play the tone on `ctx`: each note rises fast and fades, quiet enough beside other tabs. */
export function playTone(ctx: ToneContext): void {
  const now = ctx.currentTime;
  for (const [frequency, start] of TONE) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    const at = now + start;
    osc.type = "sine";
    osc.frequency.setValueAtTime(frequency, at);
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.12, at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + NOTE_SECONDS);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + NOTE_SECONDS + 0.02);
  }
}

let audio: AudioContext | null = null;

/** The page's audio context, made on the reader's click (browsers start audio only after one). */
function context(): AudioContext | null {
  if (audio === null && typeof AudioContext === "function") {
    try {
      audio = new AudioContext();
    } catch {
      return null;
    }
  }
  if (audio?.state === "suspended") void audio.resume();
  return audio;
}

/** The reader's turn as the table shows it: its round and phase, or null when not theirs. */
export type MyTurn = { round: number; phase: string | null } | null;

/** Calls `play` when a turn of the reader's begins: the turn comes to them, a new round
 * deals them the first move, or, in one answer, their turn ended and the bots played
 * theirs (the service plays bots within the request, so the page may never show the turn
 * as someone else's). Not their own draw, and not the first look at a game: a page just
 * opened on one's turn says so in its title, and a sound then would startle. */
export function turnAnnouncer(play: () => void): (game: string, turn: MyTurn) => void {
  const last = new Map<string, string | null>();
  return (game, turn) => {
    const before = last.get(game);
    const now = turn === null ? null : `${turn.round}:${turn.phase}`;
    last.set(game, now);
    if (now === null || before === undefined || now === before) return;
    if (turn !== null && before === `${turn.round}:draw`) return; // my own draw
    play();
  };
}

const announce = turnAnnouncer(() => {
  if (!soundOn()) return;
  const ctx = context();
  if (ctx !== null) playTone(ctx);
});

/** Tell the announcer the reader's turn in `game` (called on every render: it acts on a change only). */
export function noteTurn(game: string, turn: MyTurn): void {
  announce(game, turn);
}

/** The switch of the sound, remembered. */
export function SoundToggle() {
  const [on, setOn] = useState(soundOn());
  return (
    <label class="sound-toggle">
      <input
        type="checkbox"
        checked={on}
        onChange={(event) => {
          const next = event.currentTarget.checked;
          setSoundOn(next);
          setOn(next);
          // The click is the gesture that lets the page make a sound later.
          if (next) context();
        }}
      />{" "}
      {t("turn_sound")}
    </label>
  );
}
