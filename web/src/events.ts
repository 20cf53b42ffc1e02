/** Events of `GET /games/{id}/events` in words: "Bob drew from the discard pile: 7♥". */

import { type Card, cardText, cardsText } from "./cards";

/** An event as the API sends it: `type`, `seq`, and fields that depend on the type. */
export interface EventLike {
  type: string;
  seq?: number;
  seat?: number | null;
  [field: string]: unknown;
}

/** Who a seat is, in words: its name, "You" for the reader's own seat. */
export type SeatNamer = (seat: number) => string;

function cards(value: unknown): Card[] {
  return Array.isArray(value) ? value.filter((c): c is string => typeof c === "string") : [];
}

/** A table meld in short text, each joker with what it stands for: "J♠ Joker(Q♠) K♠". */
export function meldText(value: unknown): string {
  if (typeof value !== "object" || value === null) return "";
  const meld = value as { cards?: unknown; jokers?: unknown };
  const jokers = (typeof meld.jokers === "object" && meld.jokers !== null ? meld.jokers : {}) as Record<
    string,
    unknown
  >;
  return cards(meld.cards)
    .map((card, i) => {
      const standsFor = jokers[String(i)];
      return typeof standsFor === "string" ? `${cardText(card)}(${cardText(standsFor)})` : cardText(card);
    })
    .join(" ");
}

function names(seats: unknown, name: SeatNamer): string {
  const list = Array.isArray(seats) ? seats.filter((s): s is number => typeof s === "number") : [];
  return list.map(name).join(" and ");
}

/** One sentence for one event; `you` is the reader's seat (null for a spectator). */
export function describeEvent(event: EventLike, name: SeatNamer, you: number | null = null): string {
  const seat = typeof event.seat === "number" ? event.seat : -1;
  const who = name(seat);
  const mine = seat === you;
  switch (event.type) {
    case "game_created":
      return `The game was created (${String(event.preset ?? "")}).`;
    case "seat_taken":
      return `${who} took seat ${seat + 1}.`;
    case "round_started":
      return `Round ${String(event.number)} was dealt; ${name(Number(event.first ?? event.dealer))} plays first.`;
    case "drew": {
      const from = event.source === "discard" ? "the discard pile" : "the stock";
      const card = typeof event.card === "string" ? `: ${cardText(event.card)}` : "";
      return `${who} drew from ${from}${card}.`;
    }
    case "stock_refilled":
      return "The discard pile was turned over to make a new stock.";
    case "melded":
      return `${who} melded ${meldText(event.meld)}.`;
    case "laid_off":
      return `${who} laid off ${cardsText(cards(event.cards))} on meld ${String(event.meld)}.`;
    case "joker_swapped":
      return `${who} swapped ${cardText(String(event.card))} for the joker of meld ${String(event.meld)}.`;
    case "discarded":
      return `${who} discarded ${cardText(String(event.card))}.`;
    case "seat_left":
      if (event.kind !== "bot") return `${who} left; the seat is open again.`;
      return `${who} left; ${typeof event.bot === "string" ? `the ${event.bot} bot` : "a bot"} plays the seat.`;
    case "seat_away":
      return `${who} ${mine ? "are" : "is"} away; the server plays the seat.`;
    case "seat_back":
      return `${who} ${mine ? "are" : "is"} back.`;
    case "reengaged":
      return `${who} re-engaged.`;
    case "seat_rejoined":
      return `${who} rejoined with ${String(event.score)} points.`;
    case "went_out":
      return `${who} went out${event.rummy === true ? " with rummy" : ""}!`;
    case "round_ended": {
      const number = String(event.number);
      if (typeof event.winner === "number") return `Round ${number} ended: ${name(event.winner)} won it.`;
      return `Round ${number} ended with no winner.`;
    }
    case "seat_eliminated":
      return `${who} ${mine ? "are" : "is"} eliminated with ${String(event.score)} points.`;
    case "game_ended": {
      const winners = names(event.winners, name);
      return winners === "" ? "The game ended." : `The game ended: ${winners} won.`;
    }
    default: {
      const words = event.type.replace(/_/g, " ");
      return seat >= 0 ? `${who}: ${words}.` : `${words[0]?.toUpperCase() ?? ""}${words.slice(1)}.`;
    }
  }
}
