/** Card codes as the API writes them ("HA", "D10", "SK", "JK"): names, symbols and orders. */

import { t } from "./i18n";

export type Card = string;

const SUITS: Record<string, { symbol: string; red: boolean }> = {
  C: { symbol: "♣", red: false },
  D: { symbol: "♦", red: true },
  H: { symbol: "♥", red: true },
  S: { symbol: "♠", red: false },
};
const SUIT_NAMES = { C: "suit_C", D: "suit_D", H: "suit_H", S: "suit_S" } as const;
const RANK_NAMES = { A: "rank_A", J: "rank_J", Q: "rank_Q", K: "rank_K" } as const;
const RANK_SHORT = { A: "rank_short_A", J: "rank_short_J", Q: "rank_short_Q", K: "rank_short_K" } as const;
const RANK_VALUES: Record<string, number> = { A: 1, J: 11, Q: 12, K: 13 };

/** Suit order when a hand is sorted by suit: colours alternate. */
const SUIT_ORDER = ["S", "H", "C", "D"];

export function isJoker(card: Card): boolean {
  return card === "JK";
}

/** The suit letter ("" for a joker). */
export function suitOf(card: Card): string {
  return isJoker(card) ? "" : card.slice(0, 1);
}

/** The rank as written ("A", "2" … "10", "J", "Q", "K"; "" for a joker). */
export function rankOf(card: Card): string {
  return isJoker(card) ? "" : card.slice(1);
}

/** A=1 … K=13, a joker 0. */
export function rankValue(card: Card): number {
  if (isJoker(card)) return 0;
  const rank = rankOf(card);
  return RANK_VALUES[rank] ?? Number(rank);
}

/** The rank as the language prints it on a card ("Q" in English, "D" in Swedish). */
export function rankShort(card: Card): string {
  const rank = rankOf(card);
  return rank in RANK_SHORT ? t(RANK_SHORT[rank as keyof typeof RANK_SHORT]) : rank;
}

/** Short text: "7♥", "10♣", "Joker" (in the page's language). */
export function cardText(card: Card): string {
  if (isJoker(card)) return t("joker_short");
  return `${rankShort(card)}${SUITS[suitOf(card)]?.symbol ?? "?"}`;
}

/** The accessible name of a control whose face shows `shown` ("K♥") and which is said
 * in `words` ("king of hearts"): the shown text first, so a person who speaks what they
 * see to a voice control names it (WCAG 2.5.3), then the words. */
export function shownThenSaid(shown: string, words: string): string {
  return shown === words ? words : `${shown} (${words})`;
}

/** Words for screen readers and logs: "7 of hearts", "queen of spades", "joker" (in the
 * page's language: "hjärter dam"). */
export function cardLabel(card: Card): string {
  if (isJoker(card)) return t("joker");
  const rank = rankOf(card);
  const suit = suitOf(card);
  return t("card_label", {
    rank: rank in RANK_NAMES ? t(RANK_NAMES[rank as keyof typeof RANK_NAMES]) : rank,
    suit: suit in SUIT_NAMES ? t(SUIT_NAMES[suit as keyof typeof SUIT_NAMES]) : "?",
  });
}

export function isRed(card: Card): boolean {
  return SUITS[suitOf(card)]?.red ?? false;
}

export function suitSymbol(card: Card): string {
  return SUITS[suitOf(card)]?.symbol ?? "★";
}

export type SortOrder = "rank" | "suit";

/** The hand sorted by rank (then suit) or by suit (then rank); jokers last. Stable. */
export function sortHand(hand: readonly Card[], order: SortOrder): Card[] {
  const key = (card: Card): [number, number] => {
    const suit = isJoker(card) ? SUIT_ORDER.length : SUIT_ORDER.indexOf(suitOf(card));
    const rank = isJoker(card) ? 14 : rankValue(card);
    return order === "rank" ? [rank, suit] : [suit, rank];
  };
  return hand
    .map((card, index) => ({ card, index, key: key(card) }))
    .sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.index - b.index)
    .map((entry) => entry.card);
}

/** The hand in the order the reader arranged: the arranged cards it still holds (each
 * copy once), then the others (a card just drawn) in the hand's order. */
export function arrange(hand: readonly Card[], arrangement: readonly Card[]): Card[] {
  const left = [...hand];
  const kept = arrangement.filter((card) => {
    const i = left.indexOf(card);
    if (i >= 0) left.splice(i, 1);
    return i >= 0;
  });
  return [...kept, ...left];
}

/** `cards` with the card at `from` moved to `to` (both clamped to the list). */
export function moveCard(cards: readonly Card[], from: number, to: number): Card[] {
  const out = [...cards];
  const [card] = out.splice(from, 1);
  if (card === undefined) return out;
  out.splice(Math.max(0, Math.min(out.length, to)), 0, card);
  return out;
}

/** True when both lists hold the same cards, whatever their order (duplicates counted). */
export function sameCards(a: readonly Card[], b: readonly Card[]): boolean {
  if (a.length !== b.length) return false;
  const counts = new Map<Card, number>();
  for (const card of a) counts.set(card, (counts.get(card) ?? 0) + 1);
  for (const card of b) {
    const left = counts.get(card) ?? 0;
    if (left === 0) return false;
    counts.set(card, left - 1);
  }
  return true;
}

/** A list of cards as short text: "7♥ 8♥ 9♥". */
export function cardsText(cards: readonly Card[]): string {
  return cards.map(cardText).join(" ");
}
