/** Small pieces shared by the lobby and the table. */

import type { ComponentChildren } from "preact";
import { type Card, cardLabel, cardText, isJoker, isRed, rankShort, suitSymbol } from "./cards";
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
}

/** A card as a button labelled in words ("7 of hearts"), pressed while selected. */
export function CardButton(props: CardButtonProps) {
  const { card, standsFor } = props;
  const label =
    standsFor !== undefined ? t("joker_for", { card: cardLabel(standsFor) }) : cardLabel(card);
  const classes = [
    "card",
    isRed(card) ? "red" : "black",
    isJoker(card) ? "joker" : "",
    props.selected === true ? "selected" : "",
    props.hint === true ? "hint" : "",
    props.small === true ? "small" : "",
  ].join(" ");
  return (
    <button
      type="button"
      class={classes}
      data-card={card}
      aria-label={label}
      aria-pressed={props.onClick !== undefined ? props.selected === true : undefined}
      disabled={props.disabled}
      onClick={props.onClick}
      title={label}
    >
      <span class="rank" aria-hidden="true">
        {isJoker(card) ? "★" : rankShort(card)}
      </span>
      <span class="suit" aria-hidden="true">
        {isJoker(card) ? (standsFor !== undefined ? `=${cardText(standsFor)}` : t("joker_short")) : suitSymbol(card)}
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
