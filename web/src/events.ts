/** Events of `GET /games/{id}/events` in words: "Bob drew from the discard pile: 7♥". */

import { type Card, cardText, cardsText } from "./cards";
import { CATALOGUES, type TextKey, formatNumber, joinNames, t, tn } from "./i18n";

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
  return joinNames(seatList(seats).map(name));
}

export { formatNumber };

/** A count with its unit in the page's language: "1 point", "1,250 points", "5 chips";
 * `locale` changes the number format only. */
export function quantity(value: number, unit: "point" | "chip" | "card", locale?: string): string {
  const key = unit === "point" ? "points" : unit === "chip" ? "chips" : "cards";
  return tn(key, value, {}, locale);
}

function number(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** "Bob won 35 chips." / "You and Bob won 15 chips each." / "you won 8 chips and Bob won 7 chips." */
function payoutText(payouts: unknown, name: SeatNamer, you: number | null): string | null {
  if (!Array.isArray(payouts)) return null;
  const shares = payouts.map(number);
  const takers = shares.flatMap((share, seat) => (share !== null && share > 0 ? [seat] : []));
  if (takers.length === 0) return null;
  const share = (seat: number): number => shares[seat] ?? 0;
  const first = share(takers[0] as number);
  if (takers.every((seat) => share(seat) === first)) {
    const chips = quantity(first, "chip");
    if (takers.length === 1 && takers[0] === you) return t("ev_won_chips_you", { chips });
    return tn("ev_won_chips_each", takers.length, { names: joinNames(takers.map(name)), chips });
  }
  return joinNames(
    takers.map((seat) =>
      seat === you
        ? t("ev_won_chips_you", { chips: quantity(share(seat), "chip") })
        : t("ev_won_chips", { who: name(seat), chips: quantity(share(seat), "chip") }),
    ),
  );
}

/** A preset's name in words ("Rommé"), its id when the page does not know it. */
export function presetName(preset: string): string {
  const key = `preset_${preset}`;
  return key in CATALOGUES.en ? t(key as TextKey) : preset;
}

/** One sentence for one event; `you` is the reader's seat (null for a spectator). */
export function describeEvent(event: EventLike, name: SeatNamer, you: number | null = null): string {
  const seat = typeof event.seat === "number" ? event.seat : -1;
  const who = name(seat);
  const mine = seat >= 0 && seat === you;
  const points = (value: unknown): string => quantity(number(value) ?? 0, "point");
  switch (event.type) {
    case "game_created":
      return t("ev_created", { preset: presetName(String(event.preset ?? "")) });
    case "seat_taken":
      return mine ? t("ev_seat_taken_you", { n: seat + 1 }) : t("ev_seat_taken", { who, n: seat + 1 });
    case "round_started": {
      const first = Number(event.first ?? event.dealer);
      const n = String(event.number);
      return first === you ? t("ev_round_started_you", { n }) : t("ev_round_started", { n, who: name(first) });
    }
    case "drew": {
      const card = typeof event.card === "string" ? cardText(event.card) : null;
      const from = event.source === "discard" ? "discard" : "stock";
      const key = `ev_drew_${from}${mine ? "_you" : ""}${card !== null ? "_card" : ""}` as TextKey;
      return t(key, { who, card: card ?? "" });
    }
    case "stock_refilled":
      return t("ev_stock_refilled");
    case "melded":
      return t(mine ? "ev_melded_you" : "ev_melded", { who, meld: meldText(event.meld) });
    case "laid_off":
      return t(mine ? "ev_laid_off_you" : "ev_laid_off", {
        who,
        cards: cardsText(cards(event.cards)),
        meld: String(event.meld),
      });
    case "joker_swapped":
      return t(mine ? "ev_joker_swapped_you" : "ev_joker_swapped", {
        who,
        card: cardText(String(event.card)),
        meld: String(event.meld),
      });
    case "discarded":
      return t(mine ? "ev_discarded_you" : "ev_discarded", { who, card: cardText(String(event.card)) });
    case "seat_left":
      if (event.kind !== "bot") return t("ev_left_open", { who });
      return typeof event.bot === "string"
        ? t("ev_left_bot", { who, strategy: botName(event.bot) })
        : t("ev_left_a_bot", { who });
    case "seat_away":
      return mine ? t("ev_away_you") : t("ev_away", { who });
    case "seat_back":
      return mine ? t("ev_back_you") : t("ev_back", { who });
    case "rematch_offered":
      return mine ? t("ev_rematch_offered_you") : t("ev_rematch_offered", { who });
    case "reengage_offered": {
      const seats = seatList(event.seats);
      const score = number(event.score);
      const with_ = score === null ? "" : "_with";
      const params = { points: score === null ? "" : quantity(score, "point") };
      if (seats.length === 0) return t(`ev_reengage_offered_any${with_}` as TextKey, params);
      if (seats.length === 1 && seats[0] === you) return t(`ev_reengage_offered_you${with_}` as TextKey, params);
      return tn(score === null ? "ev_reengage_offered" : "ev_reengage_offered_with", seats.length, {
        ...params,
        names: names(seats, name),
      });
    }
    case "reengaged": {
      const score = number(event.score);
      const chips = number(event.chips);
      const you_ = mine ? "_you" : "";
      const params = {
        who,
        points: score === null ? "" : quantity(score, "point"),
        chips: chips === null ? "" : quantity(chips, "chip"),
      };
      if (score === null) return t(`ev_reengaged${you_}` as TextKey, params);
      return t(`ev_reengaged${you_}_with${chips === null ? "" : "_paid"}` as TextKey, params);
    }
    case "reengage_declined":
      return mine ? t("ev_reengage_declined_you") : t("ev_reengage_declined", { who });
    case "pot_opened": {
      const stake = number(event.stake);
      const pot = number(event.pot);
      const chips = stake === null ? "" : quantity(stake, "chip");
      return pot === null
        ? t("ev_pot_opened", { chips })
        : t("ev_pot_opened_pot", { chips, pot: quantity(pot, "chip") });
    }
    case "seat_rejoined":
      return t(mine ? "ev_seat_rejoined_you" : "ev_seat_rejoined", { who, points: points(event.score) });
    case "went_out": {
      const rummy = event.rummy === true ? "_rummy" : "";
      return t(`ev_went_out${rummy}${mine ? "_you" : ""}` as TextKey, { who });
    }
    case "round_ended": {
      const n = String(event.number);
      if (typeof event.winner === "number") {
        return event.winner === you
          ? t("ev_round_ended_won_you", { n })
          : t("ev_round_ended_won", { n, who: name(event.winner) });
      }
      return t("ev_round_ended_none", { n });
    }
    case "seat_eliminated":
      return t(mine ? "ev_eliminated_you" : "ev_eliminated", { who, points: points(event.score) });
    case "game_ended": {
      const winners = seatList(event.winners);
      const payouts = payoutText(event.payouts, name, you);
      if (payouts !== null) return t("ev_game_ended_payouts", { payouts });
      if (winners.length === 0) return t("ev_game_ended");
      return tn("ev_game_ended_won", winners.length, { names: names(winners, name) });
    }
    default: {
      const words = event.type.replace(/_/g, " ");
      return seat >= 0 ? `${who}: ${words}.` : `${words[0]?.toUpperCase() ?? ""}${words.slice(1)}.`;
    }
  }
}

/** A bot strategy in words ("greedy", "girig"), its id when the page does not know it. */
export function botName(strategy: string): string {
  const key = `bot_${strategy}`;
  return key in CATALOGUES.en ? t(key as TextKey) : strategy;
}
