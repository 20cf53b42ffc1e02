/**
 * "How to play this preset": the rules a game's options make, as sentences in the
 * page's language.
 *
 * Each sentence is the rule one option's value makes ("An ace is low in a run: A-2-3,
 * not Q-K-A."), so it lives in the catalogues keyed by option and value (`how_ace_low`)
 * beside the page's other words, in all five languages. What each option *is* (its
 * type, bounds and meaning) stays described once, in the service's option table, from
 * which the contract and docs/rules.md take it; `RULE_OPTIONS` names the options the
 * panel speaks of and a test holds it to the contract's list, so a new option is not
 * forgotten here.
 */

import { type Params, type PluralKey, type TextKey, joinNames, t, tn } from "./i18n";
import { quantity } from "./events";

/** The options the panel turns into sentences. */
export const RULE_OPTIONS = [
  "players", "hand_size", "ace", "ace_points", "melds_per_turn", "layoff_requires_own_meld",
  "go_out_requires_discard", "rummy_bonus", "stock_refill", "refill_keeps_top", "max_refills",
  "last_stock", "no_winner", "scoring", "end", "target_score", "rounds", "reengage",
  "reengage_limit", "stake", "decks", "jokers", "joker_points", "joker_limit", "joker_swap",
  "first_meld_min_points", "concealed_rounds", "first_turn_no_draw", "turn_seconds",
] as const;
/** Options that change how the table is run, not how the game is played. */
export const NOT_RULES = ["spectator_delay", "timeouts_to_away", "hints"] as const;

type Options = Record<string, unknown>;

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** The target for `players` seats: one number, or the map's entry (its largest when absent). */
export function targetFor(target: unknown, players: number): number | null {
  const one = num(target);
  if (one !== null) return one;
  if (typeof target !== "object" || target === null) return null;
  const map = target as Record<string, unknown>;
  const mine = num(map[String(players)]);
  if (mine !== null) return mine;
  const all = Object.values(map).map(num).filter((v): v is number => v !== null);
  return all.length > 0 ? Math.max(...all) : null;
}

/** The sentences of a game's rules, in play order: the deal, a turn, going out, scoring, the end.
 * `players` is the game's seat count (for a target per player count). */
export function howToPlay(options: Options, players: number): string[] {
  const lines: string[] = [];
  const say = (key: TextKey, params: Params = {}): void => {
    lines.push(t(key, params));
  };
  const sayN = (key: PluralKey, n: number, params: Params = {}): void => {
    lines.push(tn(key, n, params));
  };
  const choice = (name: string, allowed: readonly string[]): void => {
    const value = String(options[name] ?? "");
    if (allowed.includes(value)) say(`how_${name}_${value}` as TextKey);
  };

  // The deal
  const range = options.players;
  if (Array.isArray(range) && typeof range[0] === "number" && typeof range[1] === "number") {
    say("how_players", { min: range[0], max: range[1] });
  }
  const jokers = num(options.jokers) ?? 0;
  say(num(options.decks) === 2 ? "how_decks_two" : "how_decks_one");
  if (jokers > 0) sayN("how_jokers", jokers);
  const hand = num(options.hand_size);
  if (hand === null) say("how_hand_by_count");
  else sayN("how_hand", hand);
  if (options.first_turn_no_draw === true) say("how_first_turn_no_draw");

  // A turn
  say("how_turn");
  say(options.melds_per_turn === 1 ? "how_melds_one" : "how_melds_any");
  const minimum = num(options.first_meld_min_points) ?? 0;
  if (minimum > 0) say("how_first_meld", { points: quantity(minimum, "point") });
  say(options.layoff_requires_own_meld === true ? "how_layoff_own" : "how_layoff_any");
  choice("ace", ["low", "high_or_low", "around"]);
  if (jokers > 0) {
    choice("joker_limit", ["natural_majority", "one_natural"]);
    if (options.joker_swap === true) say("how_joker_swap");
  }
  const concealed = Array.isArray(options.concealed_rounds)
    ? options.concealed_rounds.filter((r): r is number => typeof r === "number")
    : [];
  if (concealed.length > 0) {
    sayN("how_concealed", concealed.length, { rounds: joinNames(concealed.map(String)) });
  }

  // The stock
  const refill = String(options.stock_refill ?? "");
  choice("stock_refill", ["shuffle", "turn_over", "none"]);
  const maxRefills = num(options.max_refills);
  if (refill !== "none") {
    if (options.refill_keeps_top === true) say("how_refill_keeps_top");
    if (maxRefills !== null) sayN("how_max_refills", maxRefills);
  }
  // When the stock's end ends the round only matters where it may not be refilled for ever.
  if (refill === "none" || maxRefills !== null) choice("last_stock", ["next_draw", "when_empty"]);

  // Going out and scoring
  say(options.go_out_requires_discard === true ? "how_go_out_discard" : "how_go_out_any");
  choice("rummy_bonus", ["double", "plus10", "none"]);
  choice("scoring", ["winner_takes_all", "penalty"]);
  say("how_card_points", { ace: quantity(num(options.ace_points) ?? 1, "point") });
  if (jokers > 0) say("how_joker_points", { points: quantity(num(options.joker_points) ?? 0, "point") });
  choice("no_winner", ["void", "lowest_takes_difference", "count"]);

  // The end of the game
  const target = targetFor(options.target_score, players);
  const targetPoints = target === null ? "" : quantity(target, "point");
  const penalty = options.scoring === "penalty";
  switch (options.end) {
    case "target":
      say(penalty ? "how_end_target_lowest" : "how_end_target", { points: targetPoints });
      break;
    case "rounds":
      sayN(penalty ? "how_end_rounds_lowest" : "how_end_rounds", num(options.rounds) ?? 1);
      break;
    case "express":
      say("how_end_express");
      break;
    case "elimination": {
      say("how_end_elimination", { points: targetPoints });
      const times = num(options.reengage_limit) ?? 0;
      if (options.reengage === true && times === 1) say("how_reengage_once");
      else if (options.reengage === true && times > 1) sayN("how_reengage", times);
      break;
    }
  }
  const stake = num(options.stake);
  if (stake !== null) {
    say("how_stake", {
      chips: quantity(stake, "chip"),
      half: quantity(Math.ceil(stake / 2), "chip"),
    });
  }
  const seconds = num(options.turn_seconds);
  if (seconds !== null) sayN("how_turn_seconds", seconds);
  return lines;
}

/** The panel: folded under its title, one rule a line. */
export function HowToPlay(props: { options: Options; players: number }) {
  return (
    <details class="panel how-to-play">
      <summary>{t("how_title")}</summary>
      <ul>
        {howToPlay(props.options, props.players).map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </details>
  );
}
