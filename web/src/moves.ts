/**
 * What the table offers, read from `GET /games/{id}/legal-moves` only: a button
 * is enabled when the list holds the move it would send.
 */

import type { LegalMove, MeldLayout, Move } from "./api/client";
import { type Card, sameCards } from "./cards";

/** The legal move as a move body (every legal move is one). */
export function toMove(legal: LegalMove): Move | null {
  switch (legal.type) {
    case "draw":
      return legal.source === "stock" || legal.source === "discard"
        ? { type: "draw", source: legal.source }
        : null;
    case "meld":
      return Array.isArray(legal.cards) ? { type: "meld", cards: [...legal.cards] } : null;
    case "layoff":
      return typeof legal.meld === "number" && Array.isArray(legal.cards)
        ? { type: "layoff", meld: legal.meld, cards: [...legal.cards] }
        : null;
    case "discard":
      return typeof legal.card === "string" ? { type: "discard", card: legal.card } : null;
    case "swap_joker":
      return typeof legal.meld === "number" && typeof legal.card === "string"
        ? { type: "swap_joker", meld: legal.meld, card: legal.card }
        : null;
    case "reengage":
      return { type: "reengage" };
    case "decline_reengage":
      return { type: "decline_reengage" };
    default:
      return null;
  }
}

/** The moves the buttons of the table may send, given the selected cards. */
export interface Offer {
  drawStock: Move | null;
  drawDiscard: Move | null;
  /** The meld of exactly the selected cards (in the order the service lists it). */
  meld: Move | null;
  /** Meld id → the lay-off of exactly the selected cards on it. */
  layoffs: Map<number, Move>;
  /** Meld id → the swap of the one selected card for a joker of it. */
  swaps: Map<number, Move>;
  /** The discard of the one selected card. */
  discard: Move | null;
  /** Between rounds, an eliminated seat's choice: come back in... */
  reengage: Move | null;
  /** ...or stay out. */
  declineReengage: Move | null;
  /** Every meld the hand could make now (suggestions to select), with how the table
   * would lay it out when it holds a joker (what the joker stands for). */
  melds: { cards: Card[]; layout: MeldLayout | null }[];
  /** Every lay-off the hand could make now (suggestions to select). */
  layoffOptions: { meld: number; cards: Card[] }[];
  /** Every joker swap the hand could make now (suggestions to select). */
  swapOptions: { meld: number; card: Card }[];
  /** Cards that may be discarded now. */
  discardable: Set<Card>;
}

/** The buttons' moves from the legal moves; `laidOut`: the listing's layouts of the melds
 * holding a joker, by index in `legalMoves`. */
export function offer(
  legalMoves: readonly LegalMove[],
  selected: readonly Card[],
  laidOut: Readonly<Record<string, MeldLayout>> = {},
): Offer {
  const result: Offer = {
    drawStock: null,
    drawDiscard: null,
    meld: null,
    layoffs: new Map(),
    swaps: new Map(),
    discard: null,
    reengage: null,
    declineReengage: null,
    melds: [],
    layoffOptions: [],
    swapOptions: [],
    discardable: new Set(),
  };
  for (const [index, legal] of legalMoves.entries()) {
    const move = toMove(legal);
    if (move === null) continue;
    switch (move.type) {
      case "draw":
        if (move.source === "stock") result.drawStock = move;
        else result.drawDiscard = move;
        break;
      case "meld":
        result.melds.push({ cards: move.cards, layout: laidOut[String(index)] ?? null });
        if (result.meld === null && sameCards(move.cards, selected)) result.meld = move;
        break;
      case "layoff":
        result.layoffOptions.push({ meld: move.meld, cards: move.cards });
        if (!result.layoffs.has(move.meld) && sameCards(move.cards, selected)) {
          result.layoffs.set(move.meld, move);
        }
        break;
      case "swap_joker":
        result.swapOptions.push({ meld: move.meld, card: move.card });
        if (!result.swaps.has(move.meld) && sameCards([move.card], selected)) {
          result.swaps.set(move.meld, move);
        }
        break;
      case "discard":
        result.discardable.add(move.card);
        if (sameCards([move.card], selected)) result.discard = move;
        break;
      case "reengage":
        result.reengage = move;
        break;
      case "decline_reengage":
        result.declineReengage = move;
        break;
    }
  }
  return result;
}

/** Suggestions in the order a person wants them: those holding every selected card
 * first, then the largest; `limit` shown, the rest folded. */
export function rankSuggestions<T>(
  options: readonly T[],
  cardsOf: (option: T) => readonly Card[],
  selected: readonly Card[],
  limit: number,
): { shown: T[]; folded: T[] } {
  const holdsSelection = (option: T): boolean => {
    const left = [...cardsOf(option)];
    return selected.every((card) => {
      const i = left.indexOf(card);
      if (i >= 0) left.splice(i, 1);
      return i >= 0;
    });
  };
  const ranked = options
    .map((option, index) => ({ option, index, holds: holdsSelection(option), size: cardsOf(option).length }))
    .sort((a, b) => Number(b.holds) - Number(a.holds) || b.size - a.size || a.index - b.index)
    .map((entry) => entry.option);
  return { shown: ranked.slice(0, limit), folded: ranked.slice(limit) };
}
