// Written as a TypeScript client author would, against the types openapi-typescript
// generates from openapi/openapi.json: `tsc --noEmit` must accept it (and it would
// not if a move shape, the create body or the moves' union were lost or loosened).
import type { components, operations, paths } from "./schema";

type Schemas = components["schemas"];

export const create: Schemas["CreateGame"] = {
  preset: "express",
  seats: [{ name: "Ann" }, { bot: "greedy" }],
};

export const draw: Schemas["DrawMove"] = { type: "draw", source: "stock" };
export const meld: Schemas["MeldMove"] = { type: "meld", cards: ["H5", "H6", "H7"] };
export const layoff: Schemas["LayoffMove"] = { type: "layoff", meld: 1, cards: ["H10"] };
export const swap: Schemas["SwapJokerMove"] = { type: "swap_joker", meld: 3, card: "H9" };
export const discard: Schemas["DiscardMove"] = { type: "discard", card: "SK" };
export const reengage: Schemas["ReengageMove"] = { type: "reengage" };
export const decline: Schemas["DeclineReengageMove"] = { type: "decline_reengage" };

export const every: Schemas["Move"][] = [draw, meld, layoff, swap, discard, reengage, decline];
export const actions: Schemas["MoveRequest"] = { actions: [meld, layoff] };

type MoveBody = NonNullable<
  operations["makeMove"]["requestBody"]
>["content"]["application/json"];
export const body: MoveBody = draw;

// A legal move is a Move: it can be sent back as it is.
type Legal = Schemas["LegalMoves"]["moves"][number];
export function resend(legal: Legal): MoveBody {
  return legal;
}

// The discriminator narrows: each kind has its own fields.
export function describe(move: Schemas["Move"]): string {
  switch (move.type) {
    case "draw":
      return `draw from ${move.source}`;
    case "meld":
      return `meld ${move.cards.join(" ")}`;
    case "layoff":
      return `lay off ${move.cards.join(" ")} on ${move.meld}`;
    case "swap_joker":
      return `swap ${move.card} for the joker of ${move.meld}`;
    case "discard":
      return `discard ${move.card}`;
    case "reengage":
      return "re-engage";
    case "decline_reengage":
      return "decline to re-engage";
  }
}

// Why a kind of move is not legal now: a catalogued code, with the figures behind it.
export function why(legal: Schemas["LegalMoves"]): string {
  const discard = legal.unavailable?.["discard"];
  if (discard === undefined) return "";
  const code: Schemas["Unavailable"]["code"] = discard.code;
  return discard.needed === undefined ? code : `${code}: ${discard.have} of ${discard.needed}`;
}

// Seat tokens are a security scheme, not a header parameter of the operations.
type MoveHeaders = NonNullable<operations["makeMove"]["parameters"]["header"]>;
export const headers: MoveHeaders = { "If-Match": '"7"', "Idempotency-Key": "k-1" };
type HasAuthorization = "Authorization" extends keyof MoveHeaders ? true : false;
export const noAuthorizationParameter: HasAuthorization = false;

export type Paths = keyof paths;
export const created: Paths = "/games";
