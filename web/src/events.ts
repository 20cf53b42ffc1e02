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

function seatList(seats: unknown): number[] {
  return Array.isArray(seats) ? seats.filter((s): s is number => typeof s === "number") : [];
}

function names(seats: unknown, name: SeatNamer): string {
  return seatList(seats).map(name).join(" and ");
}

const numbers = new Map<string, Intl.NumberFormat>();

/** A number as the reader's locale writes it: 1250 → "1,250" (en). */
export function formatNumber(value: number, locale?: string): string {
  const key = locale ?? "";
  let format = numbers.get(key);
  if (format === undefined) {
    format = new Intl.NumberFormat(locale);
    numbers.set(key, format);
  }
  return format.format(value);
}

/** A count with its unit: "1 point", "1,250 points", "5 chips". */
export function quantity(value: number, unit: "point" | "chip", locale?: string): string {
  return `${formatNumber(value, locale)} ${unit}${value === 1 ? "" : "s"}`;
}

function number(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** "Bob won 35 chips." / "You and Bob won 15 chips each." / "You won 8 chips and Bob won 7 chips." */
function payoutText(payouts: unknown, name: SeatNamer): string | null {
  if (!Array.isArray(payouts)) return null;
  const shares = payouts.map(number);
  const takers = shares.flatMap((share, seat) => (share !== null && share > 0 ? [seat] : []));
  if (takers.length === 0) return null;
  const share = (seat: number): number => shares[seat] ?? 0;
  const first = share(takers[0] as number);
  if (takers.every((seat) => share(seat) === first)) {
    const each = takers.length > 1 ? " each" : "";
    return `${takers.map(name).join(" and ")} won ${quantity(first, "chip")}${each}`;
  }
  return takers.map((seat) => `${name(seat)} won ${quantity(share(seat), "chip")}`).join(" and ");
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
    case "reengage_offered": {
      const seats = seatList(event.seats);
      const score = number(event.score);
      const back = score === null ? "" : ` with ${quantity(score, "point")}`;
      if (seats.length === 0) return `Eliminated players may re-engage${back}.`;
      return `${names(seats, name)} may re-engage${back}.`;
    }
    case "reengaged": {
      const score = number(event.score);
      const chips = number(event.chips);
      const back = score === null ? "" : ` with ${quantity(score, "point")}`;
      const paid = chips === null ? "" : `, putting ${quantity(chips, "chip")} in the pot`;
      return `${who} re-engaged${back}${paid}.`;
    }
    case "reengage_declined":
      return `${who} declined to re-engage and ${mine ? "are" : "is"} out.`;
    case "pot_opened": {
      const stake = number(event.stake);
      const pot = number(event.pot);
      const each = `Every player put ${stake === null ? "the stake" : quantity(stake, "chip")} in the pot`;
      return pot === null ? `${each}.` : `${each}: ${quantity(pot, "chip")} to win.`;
    }
    case "seat_rejoined":
      return `${who} rejoined with ${quantity(number(event.score) ?? 0, "point")}.`;
    case "went_out":
      return `${who} went out${event.rummy === true ? " with rummy" : ""}!`;
    case "round_ended": {
      const number = String(event.number);
      if (typeof event.winner === "number") return `Round ${number} ended: ${name(event.winner)} won it.`;
      return `Round ${number} ended with no winner.`;
    }
    case "seat_eliminated":
      return `${who} ${mine ? "are" : "is"} eliminated with ${quantity(number(event.score) ?? 0, "point")}.`;
    case "game_ended": {
      const winners = names(event.winners, name);
      const payouts = payoutText(event.payouts, name);
      if (payouts !== null) return `The game ended: ${payouts}.`;
      return winners === "" ? "The game ended." : `The game ended: ${winners} won.`;
    }
    default: {
      const words = event.type.replace(/_/g, " ");
      return seat >= 0 ? `${who}: ${words}.` : `${words[0]?.toUpperCase() ?? ""}${words.slice(1)}.`;
    }
  }
}
