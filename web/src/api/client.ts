/** The typed API client: paths and shapes generated from openapi/openapi.json. */

import createClient from "openapi-fetch";
import type { components, paths } from "./schema";
import { type Connection, retryingFetch } from "./retry";

export type Schemas = components["schemas"];
export type GameView = Schemas["GameView"];
export type Preset = Schemas["Preset"];
export type LobbyGame = Schemas["LobbyGame"];
export type SeatSpec = Schemas["SeatSpec"];
export type CreateGame = Schemas["CreateGame"];
export type Meld = Schemas["Meld"];
export type MeldLayout = Schemas["MeldLayout"];
export type ViewSeat = Schemas["ViewSeat"];
export type FinishedRound = Schemas["FinishedRound"];
export type GameEvent = Schemas["Event"];
export type Problem = Schemas["Problem"];
export type Move = Schemas["Move"];
export type LegalMove = Schemas["LegalMoves"]["moves"][number];

type Listener = (state: Connection) => void;
const listeners = new Set<Listener>();

/** Follow whether the service is reachable ("reconnecting" while it is not). */
export function onConnection(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The client of the service this page came from (same origin). */
export const api = createClient<paths>({
  baseUrl: globalThis.location?.origin ?? "",
  fetch: retryingFetch({
    onConnection: (state) => {
      for (const listener of listeners) listener(state);
    },
  }),
});

export function bearer(token: string | null): { Authorization?: string } {
  return token === null ? {} : { Authorization: `Bearer ${token}` };
}

/** A fresh `Idempotency-Key` (works outside secure contexts too). */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The text to show for a refused request: the problem's `detail`, else its title. */
export function problemText(error: unknown, fallback = "The service refused this."): string {
  if (typeof error === "object" && error !== null) {
    const problem = error as Partial<Problem>;
    if (typeof problem.detail === "string" && problem.detail !== "") return problem.detail;
    if (typeof problem.title === "string" && problem.title !== "") return problem.title;
  }
  return fallback;
}
