/** A hint (`GET /games/{id}/hint`) in the reader's language, and the cards it names. */

import type { Move, Schemas } from "./api/client";
import { type Card, cardsText } from "./cards";
import { t, tn } from "./i18n";

export type Hint = Schemas["Hint"];
export type HintReason = Schemas["HintReason"];

/** The cards of the hand a hinted move plays (to highlight them): none for a draw. */
export function hintCards(move: Move): Card[] {
  switch (move.type) {
    case "meld":
    case "layoff":
      return [...move.cards];
    case "discard":
    case "swap_joker":
      return [move.card];
    default:
      return [];
  }
}

function card(reason: HintReason): string {
  return typeof reason.card === "string" ? cardsText([reason.card]) : "";
}

/** What the move does, in words: the first sentence of a hint. */
function whatToDo(move: Move, reason: HintReason): string {
  switch (reason.code) {
    case "take_discard":
      return t("hint_take_discard", { card: card(reason) });
    case "draw_stock":
      return reason.card ? t("hint_draw_stock", { card: card(reason) }) : t("hint_draw_stock_plain");
    case "reengage":
      return t("hint_reengage");
    case "decline_reengage":
      return t("hint_decline_reengage");
    case "only_move":
      return t("hint_only_move", { card: card(reason) });
    default:
      break;
  }
  let text: string;
  if (move.type === "meld") text = t("hint_meld", { cards: cardsText(move.cards) });
  else if (move.type === "layoff") text = t("hint_lay_off", { cards: cardsText(move.cards), meld: move.meld });
  else if (move.type === "swap_joker") text = t("hint_swap_joker", { card: cardsText([move.card]), meld: move.meld });
  else if (move.type === "discard") text = t("hint_discard", { card: cardsText([move.card]) });
  else text = t("hint_draw_stock_plain");
  return reason.code === "go_out" ? `${text} ${t("hint_go_out")}` : text;
}

/** A hint in sentences: what to do, what the hand builds toward, what a discard gives away. */
export function hintText(hint: Hint): string {
  const { move, reason } = hint;
  const parts = [whatToDo(move, reason)];
  if (reason.code === "reengage" || reason.code === "decline_reengage" || reason.code === "go_out") {
    return parts.join(" ");
  }
  const builds = reason.builds;
  if (builds !== undefined && reason.code !== "draw_stock") {
    parts.push(
      builds.length > 0
        ? t("hint_builds", { melds: builds.map((m) => cardsText(m)).join(t("list_sep")) })
        : t("hint_builds_none"),
    );
  }
  if (typeof reason.deadwood === "number") {
    parts.push(t("hint_deadwood", { points: tn("points", reason.deadwood) }));
  }
  if (reason.code === "discard") {
    if (reason.feeds_table) parts.push(t("hint_gives_table"));
    if (reason.feeds_next) parts.push(t("hint_gives_next"));
    if (!reason.feeds_table && !reason.feeds_next) parts.push(t("hint_gives_little"));
  }
  return parts.join(" ");
}
