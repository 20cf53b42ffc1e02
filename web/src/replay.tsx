/** A game's replay (`#/games/{id}/replay`): its moves stepped through one by one,
 * each shown as the service replays it (`GET /games/{id}/replay?seq=N`): from the
 * reader's seat with its saved token, or with every hand once the game is over. */

import { useEffect, useMemo, useState } from "preact/hooks";
import { type GameView, api, bearer } from "./api/client";
import { CardButton } from "./components";
import { type EventLike, describeEvent, formatNumber, presetName, quantity } from "./events";
import { t } from "./i18n";
import { loadSeat } from "./storage";
import { seatName } from "./table";
import { refusalText } from "./reasons";

/** The events a replay steps through: each a move (a round's end follows its last). */
export const MOVE_EVENTS = new Set([
  "drew",
  "melded",
  "laid_off",
  "joker_swapped",
  "discarded",
  "reengaged",
  "reengage_declined",
]);

/** Seconds between two moves when the replay plays on, to choose from. */
const PACES = [0.5, 1, 2] as const;

interface Step {
  seq: number;
  round: number;
}

/** The steps of a record's events: each move's `seq`, with the round it is of. */
export function replaySteps(events: readonly EventLike[]): Step[] {
  const steps: Step[] = [];
  let round = 0;
  for (const event of events) {
    if (event.type === "round_started") round = Number(event.number);
    else if (MOVE_EVENTS.has(String(event.type))) steps.push({ seq: Number(event.seq), round });
  }
  return steps;
}

interface Shown {
  view: GameView;
  event: EventLike;
  hands: string[][] | null;
}

export function ReplayPage(props: { gameId: string }) {
  const { gameId } = props;
  const token = useMemo(() => loadSeat(gameId)?.token ?? null, [gameId]);
  const [steps, setSteps] = useState<Step[] | null>(null);
  const [at, setAt] = useState(0);
  const [shown, setShown] = useState<Shown | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [playing, setPlaying] = useState(false);
  const [pace, setPace] = useState<number>(1);

  useEffect(() => {
    void api
      .GET("/games/{game_id}/record", { params: { path: { game_id: gameId } }, headers: bearer(token) })
      .then(({ data, error: problem }) => {
        if (data === undefined) setError(refusalText(problem, t("replay_unavailable")));
        // The JSON answer (the only one asked for): a record.
        else setSteps(replaySteps((data as unknown as { events: EventLike[] }).events));
      });
  }, [gameId, token]);

  const step = steps?.[at];
  useEffect(() => {
    if (step === undefined) return;
    let current = true;
    void api
      .GET("/games/{game_id}/replay", {
        params: { path: { game_id: gameId }, query: { seq: step.seq } },
        headers: bearer(token),
      })
      .then(({ data, error: problem }) => {
        if (!current) return;
        if (data === undefined) setError(refusalText(problem, t("replay_unavailable")));
        else setShown({ view: data.view as GameView, event: data.event as EventLike, hands: data.hands ?? null });
      });
    return () => {
      current = false;
    };
  }, [gameId, token, step?.seq]);

  const total = steps?.length ?? 0;
  useEffect(() => {
    if (!playing) return;
    if (at >= total - 1) {
      setPlaying(false);
      return;
    }
    const timer = setTimeout(() => setAt(at + 1), pace * 1000);
    return () => clearTimeout(timer);
  }, [playing, at, total, pace, shown]);

  const rounds = useMemo(() => [...new Set((steps ?? []).map((s) => s.round))], [steps]);
  const go = (index: number): void => setAt(Math.max(0, Math.min(total - 1, index)));
  const view = shown?.view ?? null;
  const you = view !== null && typeof view.you === "number" ? view.you : null;
  const name = (seat: number): string => (view === null ? String(seat + 1) : seatName(view, seat, you));

  return (
    <main class="replay" data-step={at}>
      <header class="game-header">
        <a href={`#/games/${gameId}`} class="button">
          {t("replay_back")}
        </a>
        <h1>{t("replay_title")}</h1>
        {view !== null && (
          <span>
            <strong>{presetName(view.preset)}</strong>
            {view.round !== null && ` · ${t("round_n", { n: view.round.number })}`}
          </span>
        )}
      </header>
      {error !== null && (
        <p class="panel alert" role="alert">
          {error}
        </p>
      )}
      {steps !== null && total > 0 && (
        <nav class="panel replay-controls" aria-label={t("replay_title")}>
          <button type="button" data-action="first" disabled={at === 0} onClick={() => go(0)}>
            {t("replay_first")}
          </button>
          <button type="button" data-action="previous" disabled={at === 0} onClick={() => go(at - 1)}>
            {t("replay_previous")}
          </button>
          <button
            type="button"
            class="primary"
            data-action="play"
            aria-pressed={playing}
            disabled={at >= total - 1}
            onClick={() => setPlaying(!playing)}
          >
            {playing ? t("replay_pause") : t("replay_play")}
          </button>
          <button type="button" data-action="next" disabled={at >= total - 1} onClick={() => go(at + 1)}>
            {t("replay_next")}
          </button>
          <button type="button" data-action="last" disabled={at >= total - 1} onClick={() => go(total - 1)}>
            {t("replay_last")}
          </button>
          <label>
            {t("replay_round")}{" "}
            <select
              value={step?.round ?? 1}
              onChange={(e) => go(steps.findIndex((s) => s.round === Number(e.currentTarget.value)))}
            >
              {rounds.map((round) => (
                <option key={round} value={round}>
                  {formatNumber(round)}
                </option>
              ))}
            </select>
          </label>
          <label>
            {t("replay_pace")}{" "}
            <select value={pace} onChange={(e) => setPace(Number(e.currentTarget.value))}>
              {PACES.map((seconds) => (
                <option key={seconds} value={seconds}>
                  {t("seconds_short", { n: formatNumber(seconds) })}
                </option>
              ))}
            </select>
          </label>
          <span class="replay-step" aria-live="polite">
            {t("replay_step", { n: formatNumber(at + 1), total: formatNumber(total) })}
          </span>
        </nav>
      )}
      {shown !== null && view !== null && (
        <>
          <p class="panel last-move replay-move" data-seq={shown.event.seq}>
            {describeEvent(shown.event, name, you)}
          </p>
          <section class="players replay-players" aria-label={t("players")}>
            {view.seats.map((seat) => {
              // In play: every hand after the game's end, else the reader's own;
              // between rounds (and at the end) each hand as the round left it.
              const ended = view.round === null ? view.rounds[view.rounds.length - 1] : undefined;
              const cards =
                shown.hands?.[seat.seat] ??
                (ended !== undefined ? (ended.hands[seat.seat] ?? []) : null) ??
                (seat.seat === you ? (view.hand ?? []) : null);
              return (
                <div key={seat.seat} class="player" data-seat={seat.seat}>
                  <div class="player-name">{name(seat.seat)}</div>
                  <div class="player-stats">
                    <span class="replay-score" aria-label={t("score_label", { n: seat.score })}>
                      {t("score", { n: seat.score })}
                    </span>
                    {view.round !== null && <span> 🂠 {formatNumber(seat.hand_size)}</span>}
                  </div>
                  {cards !== null && (
                    <span class="cards">
                      {cards.map((card, i) => (
                        <CardButton key={i} card={card} small />
                      ))}
                    </span>
                  )}
                </div>
              );
            })}
          </section>
          {view.round !== null && (
            <section class="table" aria-label={t("table")}>
              <p>
                {t("stock_label", { cards: quantity(view.round.stock_size, "card") })}
                {" · "}
                {view.round.discard_pile.length > 0 && (
                  <CardButton card={view.round.discard_pile[view.round.discard_pile.length - 1] ?? ""} small />
                )}
              </p>
              <ul class="melds">
                {view.round.melds.map((meld) => (
                  <li key={meld.id} class="meld">
                    <span class="cards">
                      {meld.cards.map((card, i) => (
                        <CardButton key={i} card={card} small />
                      ))}
                    </span>
                  </li>
                ))}
              </ul>
            </section>
          )}
        </>
      )}
    </main>
  );
}
