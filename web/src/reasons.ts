/**
 * Why a control is disabled, in the page's language, from the service's refusal codes:
 * `GET /legal-moves` answers `unavailable` per move type with none listed
 * (`{"discard": {"code": "first_meld_minimum", "needed": 40, "have": 9}}`), and a refused
 * move's problem carries the same code.
 */

import type { GameView, Schemas } from "./api/client";
import { problemText } from "./api/client";
import { CATALOGUES, type TextKey, t } from "./i18n";
import { quantity } from "./events";
import type { Offer } from "./moves";

export type Unavailable = Schemas["Unavailable"];
/** Move type → why none of that type is legal now. */
export type Reasons = Partial<Record<string, Unavailable>>;

function catalogued(code: string): TextKey | null {
  const key = `reason_${code}`;
  return key in CATALOGUES.en ? (key as TextKey) : null;
}

/** One reason in words, with its figures: "Your first melds must make 40 points in all
 * before you lay off or discard; yours make 9." */
export function reasonText(reason: Pick<Unavailable, "code" | "needed" | "have">): string {
  if (reason.code === "first_meld_minimum") {
    if (typeof reason.needed === "number" && typeof reason.have === "number") {
      return t("reason_first_meld_minimum", { points: quantity(reason.needed, "point"), have: reason.have });
    }
    return t("reason_first_meld_minimum_plain");
  }
  const key = catalogued(reason.code);
  return key === null ? t("reason_unknown") : t(key);
}

/** A refused request in words: the code's catalogue entry when the page has one, else
 * the problem's own words. */
export function refusalText(error: unknown, fallback?: string): string {
  if (typeof error === "object" && error !== null) {
    const problem = error as { code?: unknown; needed?: unknown; have?: unknown };
    if (typeof problem.code === "string" && catalogued(problem.code) !== null) {
      return reasonText({
        code: problem.code as Unavailable["code"],
        ...(typeof problem.needed === "number" ? { needed: problem.needed } : {}),
        ...(typeof problem.have === "number" ? { have: problem.have } : {}),
      });
    }
  }
  if (typeof error === "object" && error !== null) {
    const code = (error as { code?: unknown }).code;
    const alias: Record<string, string> = { service_unavailable: "busy", store_unavailable: "busy" };
    const key = typeof code === "string" ? `problem_${alias[code] ?? code}` : "";
    if (key in CATALOGUES.en) return t(key as TextKey);
  }
  return problemText(error, fallback ?? t("refused"));
}

/** Why each disabled action of the table is disabled (null where it is enabled, or
 * where nothing needs saying). */
export interface ActionReasons {
  drawStock: string | null;
  drawDiscard: string | null;
  meld: string | null;
  discard: string | null;
}

/** The reasons for the table's buttons from the service's `unavailable` and, where the
 * move kind is possible but not with the cards selected, from the selection. */
export function actionReasons(
  reasons: Reasons,
  offers: Offer,
  selected: number,
  pileEmpty: boolean,
): ActionReasons {
  const of = (kind: string): string | null => {
    const reason = reasons[kind];
    return reason === undefined ? null : reasonText(reason);
  };
  const drawReason = of("draw");
  let drawDiscard: string | null = null;
  if (offers.drawDiscard === null) {
    drawDiscard =
      drawReason ?? (pileEmpty ? reasonText({ code: "discard_pile_empty" }) : t("reason_unknown"));
  }
  let meld: string | null = null;
  if (offers.meld === null) meld = of("meld") ?? t("reason_select_meld");
  let discard: string | null = null;
  if (offers.discard === null) {
    discard =
      of("discard") ??
      (selected === 1 && offers.discardable.size > 0 ? t("reason_card_kept") : t("reason_select_discard"));
  }
  return {
    drawStock: offers.drawStock === null ? (drawReason ?? t("reason_unknown")) : null,
    drawDiscard,
    meld,
    discard,
  };
}

/** The status line of the reader's seat, matching what the buttons allow. */
export function turnText(view: GameView, you: number | null, reasons: Reasons = {}): string {
  const round = view.round;
  if (view.status === "waiting") return t("turn_waiting_players");
  if (view.status === "finished") return t("turn_game_over");
  if (round === null) return t("turn_next_deal");
  if (round.turn === null) return "";
  if (round.turn !== you) {
    const seat = view.seats[round.turn];
    return t("turn_waiting_for", { name: seat?.name ?? t("seat_n", { n: round.turn + 1 }) });
  }
  if (round.phase === "draw") {
    return round.discard_pile.length === 0 ? t("turn_draw_stock") : t("turn_draw");
  }
  const discard = reasons.discard;
  if (discard === undefined) return t("turn_play");
  if (discard.code === "first_meld_minimum" && typeof discard.needed === "number") {
    return t("turn_first_meld", {
      points: quantity(discard.needed, "point"),
      have: typeof discard.have === "number" ? discard.have : 0,
    });
  }
  return t("turn_reason", { reason: reasonText(discard) });
}
