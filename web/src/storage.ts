/** Seat tokens kept in localStorage per game, so a reload resumes and leaving forgets. */

import type { CreateGame } from "./api/client";

const PREFIX = "rummy.seat.";
const NAME_KEY = "rummy.name";
const ARRANGEMENT_PREFIX = "rummy.arrangement.";

export interface SavedSeat {
  token: string;
  seat: number;
  /** The request that created the game, when this browser created it ("play again"). */
  created?: CreateGame;
}

function store(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage disabled: play without resuming
  }
}

export function saveSeat(gameId: string, seat: SavedSeat): void {
  store()?.setItem(PREFIX + gameId, JSON.stringify(seat));
}

export function loadSeat(gameId: string): SavedSeat | null {
  const raw = store()?.getItem(PREFIX + gameId);
  if (raw == null) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<SavedSeat>;
    if (typeof parsed.token !== "string" || typeof parsed.seat !== "number") return null;
    return parsed as SavedSeat;
  } catch {
    return null;
  }
}

export function forgetSeat(gameId: string): void {
  store()?.removeItem(PREFIX + gameId);
  store()?.removeItem(ARRANGEMENT_PREFIX + gameId);
}

/** The order the reader arranged their hand in for this game; null when sorted. */
export function loadArrangement(gameId: string): string[] | null {
  try {
    const parsed: unknown = JSON.parse(store()?.getItem(ARRANGEMENT_PREFIX + gameId) ?? "null");
    return Array.isArray(parsed) && parsed.every((c) => typeof c === "string") ? parsed : null;
  } catch {
    return null;
  }
}

export function saveArrangement(gameId: string, cards: readonly string[] | null): void {
  if (cards === null) store()?.removeItem(ARRANGEMENT_PREFIX + gameId);
  else store()?.setItem(ARRANGEMENT_PREFIX + gameId, JSON.stringify(cards));
}

/** Games this browser holds a seat in. */
export function savedGames(): string[] {
  const s = store();
  if (s === null) return [];
  const ids: string[] = [];
  for (let i = 0; i < s.length; i++) {
    const key = s.key(i);
    if (key?.startsWith(PREFIX)) ids.push(key.slice(PREFIX.length));
  }
  return ids.sort();
}

export function savedName(): string {
  return store()?.getItem(NAME_KEY) ?? "";
}

export function saveName(name: string): void {
  store()?.setItem(NAME_KEY, name);
}
