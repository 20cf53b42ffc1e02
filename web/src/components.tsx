/** Small pieces shared by the lobby and the table. */

import type { ComponentChildren } from "preact";
import { type Card, cardLabel, cardText, isJoker, isRed, rankShort, shownThenSaid, suitSymbol } from "./cards";
import { quantity } from "./events";
import { t } from "./i18n";

export interface CardButtonProps {
  card: Card;
  selected?: boolean;
  disabled?: boolean;
  onClick?: () => void;
  /** What the card stands for (a joker in a meld). */
  standsFor?: Card | undefined;
  hint?: boolean;
  small?: boolean;
  /** Just drawn by the reader: marked until their next move. */
  drawn?: boolean;
  /** Its place in a hand the reader arranges: the card can be dragged. */
  place?: number;
}

/** A card as a button labelled in words ("7 of hearts"), pressed while selected. */
export function CardButton(props: CardButtonProps) {
  const { card, standsFor } = props;
  const named =
    standsFor !== undefined ? t("joker_for", { card: cardLabel(standsFor) }) : cardLabel(card);
  const words = props.drawn === true ? t("drawn_card", { card: named }) : named;
  const rank = isJoker(card) ? "★" : rankShort(card);
  const suit = isJoker(card) ? (standsFor !== undefined ? `=${cardText(standsFor)}` : t("joker_short")) : suitSymbol(card);
  const classes = [
    "card",
    isRed(card) ? "red" : "black",
    isJoker(card) ? "joker" : "",
    props.selected === true ? "selected" : "",
    props.hint === true ? "hint" : "",
    props.small === true ? "small" : "",
    props.drawn === true ? "drawn" : "",
  ].join(" ");
  return (
    <button
      type="button"
      class={classes}
      data-card={card}
      data-pos={props.place}
      draggable={props.place !== undefined}
      aria-label={shownThenSaid(`${rank}${suit}`, words)}
      aria-pressed={props.onClick !== undefined ? props.selected === true : undefined}
      disabled={props.disabled}
      onClick={props.onClick}
      title={words}
    >
      <span class="rank" aria-hidden="true">
        {rank}
      </span>
      <span class="suit" aria-hidden="true">
        {suit}
      </span>
    </button>
  );
}

/** The back of a card (hidden cards: the stock, an opponent's hand). */
export function CardBack(props: { label: string; children?: ComponentChildren }) {
  return (
    <span class="card back" role="img" aria-label={props.label}>
      {props.children}
    </span>
  );
}

/** A notice of a refusal or failure, read out when it appears. */
export function Alert(props: { text: string | null; onClose?: () => void }) {
  if (props.text === null) return null;
  return (
    <div class="alert" role="alert">
      <span>{props.text}</span>
      {props.onClose !== undefined && (
        <button type="button" class="link" onClick={props.onClose} aria-label={t("dismiss")}>
          ✕
        </button>
      )}
    </div>
  );
}

/** The rules a player may not expect, where they apply: low scores win under penalty
 * scoring; a first-meld minimum. */
export function RuleTags(props: { options: Record<string, unknown> }) {
  const { options } = props;
  const minimum = typeof options.first_meld_min_points === "number" ? options.first_meld_min_points : 0;
  return (
    <>
      {options.scoring === "penalty" && (
        <>
          {" "}
          <span class="tag rule">{t("rule_lowest_wins")}</span>
        </>
      )}
      {minimum > 0 && (
        <>
          {" "}
          <span class="tag rule">{t("rule_first_meld", { points: quantity(minimum, "point") })}</span>
        </>
      )}
    </>
  );
}
