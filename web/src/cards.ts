/** Card codes as the API writes them ("HA", "D10", "SK", "JK"): names, symbols and orders. */

export type Card = string;

const SUITS: Record<string, { symbol: string; name: string; red: boolean }> = {
  C: { symbol: "♣", name: "clubs", red: false },
  D: { symbol: "♦", name: "diamonds", red: true },
  H: { symbol: "♥", name: "hearts", red: true },
  S: { symbol: "♠", name: "spades", red: false },
};

const RANK_NAMES: Record<string, string> = { A: "ace", J: "jack", Q: "queen", K: "king" };
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

/** Short text: "7♥", "10♣", "Joker". */
export function cardText(card: Card): string {
  if (isJoker(card)) return "Joker";
  return `${rankOf(card)}${SUITS[suitOf(card)]?.symbol ?? "?"}`;
}

/** Words for screen readers and logs: "7 of hearts", "queen of spades", "joker". */
export function cardLabel(card: Card): string {
  if (isJoker(card)) return "joker";
  const rank = rankOf(card);
  return `${RANK_NAMES[rank] ?? rank} of ${SUITS[suitOf(card)]?.name ?? "?"}`;
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
