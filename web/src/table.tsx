/** A game's page: the join form while a seat is open, then the table, live. */

import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import {
  type CreateGame,
  type FinishedRound,
  type GameEvent,
  type GameView,
  type LegalMove,
  type Meld,
  type MeldLayout,
  type Move,
  type SeatSpec,
  api,
  bearer,
  newIdempotencyKey,
} from "./api/client";
import {
  type Card,
  type SortOrder,
  arrange,
  cardLabel,
  cardText,
  cardsText,
  moveCard,
  shownThenSaid,
  sortHand,
} from "./cards";
import { Alert, CardBack, CardButton, RuleTags } from "./components";
import { HowToPlay } from "./rules";
import { SoundToggle, noteTurn } from "./sound";
import { contract } from "./contract";
import {
  type EventLike,
  botName,
  describeEvent,
  formatNumber,
  meldText,
  presetName,
  quantity,
} from "./events";
import { type Hint, hintCards, hintText } from "./hints";
import { joinNames, language, t, tn } from "./i18n";
import { type ActionReasons, type Reasons, actionReasons, refusalText, turnText } from "./reasons";
import { follow, sseEvents } from "./live";
import { botOfSeat, botWords, createAndOpen } from "./lobby";
import { type Offer, offer, rankSuggestions } from "./moves";
import { Pacer, pageInterval } from "./pacing";
import { gameLink, navigate, replayPath } from "./router";
import { clientSeed } from "./seed";
import {
  type SavedSeat,
  forgetSeat,
  loadArrangement,
  loadSeat,
  saveArrangement,
  saveName,
  saveSeat,
  savedName,
} from "./storage";

const SORT_KEY = "rummy.sort";
const LOG_LENGTH = 40;

function loadSort(): SortOrder {
  try {
    return localStorage.getItem(SORT_KEY) === "suit" ? "suit" : "rank";
  } catch {
    return "rank";
  }
}

/** A seat is open while nobody holds it. */
export function isOpenSeat(seat: GameView["seats"][number]): boolean {
  return seat.kind === "human" && seat.name === null;
}

/** Between rounds of an elimination game, the decision the next deal waits for. */
export type ReengageOffer = NonNullable<GameView["reengage"]>;

/** The re-engage button's words: "Re-engage with 1,250 points" (and "for 5 chips" with a stake). */
export function reengageLabel(offer: ReengageOffer, locale?: string): string {
  const points = quantity(offer.score, "point", locale);
  return typeof offer.chips === "number"
    ? t("reengage_with_for", { points, chips: quantity(offer.chips, "chip", locale) })
    : t("reengage_with", { points });
}

/** For everyone but the seats deciding: "Waiting for Bob to decide whether to re-engage…";
 * null when no other seat is deciding. */
export function reengageWaiting(view: GameView, you: number | null): string | null {
  const others = (view.reengage?.seats ?? []).filter((seat) => seat !== you);
  if (others.length === 0) return null;
  const names = joinNames(others.map((seat) => view.seats[seat]?.name ?? t("seat_n", { n: seat + 1 })));
  return tn("reengage_waiting", others.length, { names });
}

/** Seats for "play again": the same bots, me, and open seats for the other people. */
export function againSeats(view: GameView, name: string, seed: () => string = clientSeed): SeatSpec[] {
  return view.seats.map((seat): SeatSpec => {
    if (seat.seat === view.you) return { name, client_seed: seed() };
    if (seat.kind === "bot") {
      // The view names a bot seat after its strategy ("greedy bot", "expert3 bot").
      const bot = botOfSeat(seat.name);
      const spec: SeatSpec = { bot: (bot?.bot ?? contract.bots[0] ?? "greedy") as NonNullable<SeatSpec["bot"]> };
      return bot?.level === undefined ? spec : { ...spec, level: bot.level };
    }
    return { name: null };
  });
}

/** Whether a finished game's page waits for a rematch: the reader holds a seat, another
 * person played too, and nobody has started one yet (the page keeps following the game
 * until `rematch_offered`). */
export function awaitsRematch(view: GameView): boolean {
  return (
    view.status === "finished" &&
    typeof view.you === "number" &&
    (view.next_game ?? null) === null &&
    otherPeople(view)
  );
}

/** Whether anyone but the reader played a seat of their own (not a bot). */
export function otherPeople(view: GameView): boolean {
  return view.seats.some((seat) => seat.seat !== view.you && seat.kind === "human");
}

export function GamePage(props: { gameId: string }) {
  const { gameId } = props;
  const [saved, setSaved] = useState<SavedSeat | null>(() => loadSeat(gameId));
  const token = saved?.token ?? null;
  const [view, setView] = useState<GameView | null>(null);
  const [legal, setLegal] = useState<LegalMove[]>([]);
  const [reasons, setReasons] = useState<Reasons>({});
  const [laidOut, setLaidOut] = useState<Record<string, MeldLayout>>({});
  const [missing, setMissing] = useState<string | null>(null);
  const [log, setLog] = useState<GameEvent[]>([]);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState<number[]>([]);
  const [order, setOrder] = useState<SortOrder>(loadSort);
  /** The reader's own order of the hand (dragged, or moved by keys); null when sorted. */
  const [arrangement, setArrangement] = useState<Card[] | null>(() => loadArrangement(gameId));
  const [showPile, setShowPile] = useState(false);
  const [seenRound, setSeenRound] = useState<number | null>(null);
  /** The move shown last (the table's moves are shown one at a time), and how many wait. */
  const [lastEvent, setLastEvent] = useState<GameEvent | null>(null);
  const [waitingEvents, setWaitingEvents] = useState(0);
  const pacer = useRef<Pacer<GameEvent> | null>(null);
  /** The cards the reader's last draw brought into the hand (marked until the next move). */
  const [drawn, setDrawn] = useState<Card[]>([]);
  const latest = useRef<GameView | null>(null);
  /** Stops following the game (before giving up the seat: its token stops counting). */
  const stopFollowing = useRef<() => void>(() => undefined);
  /** Bumped to follow again (after a refused leave). */
  const [followRun, setFollowRun] = useState(0);

  /** The game and seat the page shows now: an answer fetched for another (the
   * watcher's view asked for just before joining, say) can arrive after the
   * seat's own and is dropped, never shown in its place. */
  const showing = useRef({ gameId, token });
  showing.current = { gameId, token };

  /** The view and legal moves fetched afresh; null when refused or no longer wanted. */
  const reload = useCallback(async (): Promise<GameView | null> => {
    const path = { game_id: gameId };
    const headers = bearer(token);
    for (let attempt = 0; attempt < 3; attempt++) {
      const [viewAnswer, legalAnswer] = await Promise.all([
        api.GET("/games/{game_id}", { params: { path }, headers }),
        token === null
          ? Promise.resolve(null)
          : api.GET("/games/{game_id}/legal-moves", { params: { path }, headers }),
      ]);
      if (showing.current.gameId !== gameId || showing.current.token !== token) return null;
      const fresh = viewAnswer.data;
      if (fresh === undefined) {
        if (viewAnswer.response.status === 401 && token !== null) {
          forgetSeat(gameId); // a token this game does not know: watch instead
          setSaved(null);
        } else if (viewAnswer.response.status === 404) {
          setMissing(refusalText(viewAnswer.error, t("no_such_game")));
        } else {
          setRefusal(refusalText(viewAnswer.error));
        }
        return null;
      }
      const current = latest.current;
      if (current !== null && current.version > fresh.version) return current;
      const moves = legalAnswer?.data;
      if (moves !== undefined && moves.version !== fresh.version) continue; // raced a move
      latest.current = fresh;
      setView(fresh);
      setLegal(moves?.moves ?? []);
      setReasons((moves?.unavailable ?? {}) as Reasons);
      setLaidOut(moves?.laid_out ?? {});
      return fresh;
    }
    return latest.current;
  }, [gameId, token]);

  useEffect(() => {
    latest.current = null;
    setView(null);
    setLog([]);
    setSelected([]);
    setLastEvent(null);
    const controller = new AbortController();
    stopFollowing.current = () => controller.abort();
    const paced = new Pacer<GameEvent>({
      interval: pageInterval(),
      onShow: (event) => {
        setLog((before) => [...before, event].slice(-LOG_LENGTH));
        setLastEvent(event);
        setWaitingEvents(paced.pending);
      },
    });
    pacer.current = paced;
    controller.signal.addEventListener("abort", () => paced.stop());
    let history = true;
    const run = async (): Promise<void> => {
      const first = await reload();
      if (first === null || controller.signal.aborted) return;
      setSeenRound((seen) => seen ?? (first.status === "finished" ? 0 : first.rounds.length));
      await follow(
        {
          after: Math.max(0, first.last_event - 15),
          poll: async (after, wait, signal) => {
            const { data, error } = await api.GET("/games/{game_id}/events", {
              params: { path: { game_id: gameId }, query: { after, wait } },
              headers: bearer(token),
              signal,
            });
            if (data === undefined) throw new Error(refusalText(error));
            return data;
          },
          stream: async (after, signal) => {
            // Not through the retrying fetch: a refused stream (503 when the server
            // holds its most streams) falls back to the long-poll at once.
            const { response } = await api.GET("/games/{game_id}/stream", {
              params: { path: { game_id: gameId }, query: { after } },
              headers: { ...bearer(token), Accept: "text/event-stream" },
              parseAs: "stream",
              fetch: (request: Request) => fetch(request),
              signal,
            });
            if (!response.ok || response.body === null) {
              await response.body?.cancel();
              return null;
            }
            return sseEvents(response.body);
          },
          onEvents: (events: GameEvent[]) => {
            // The events before the page opened show at once; then one move at a time.
            paced.push(events, { now: history });
            history = false;
            setWaitingEvents(paced.pending);
            void reload();
          },
          done: () => latest.current?.status === "finished" && !awaitsRematch(latest.current),
        },
        controller.signal,
      );
    };
    void run();
    return () => controller.abort();
  }, [gameId, token, reload, followRun]);

  const hand = view?.hand ?? [];
  const handKey = hand.join(",");
  useEffect(() => setSelected([]), [handKey]);

  const selectedCards = selected.map((i) => hand[i]).filter((c): c is Card => c !== undefined);
  const offers = useMemo(
    () => offer(legal, selectedCards, laidOut),
    [legal, laidOut, selectedCards.join(",")],
  );
  const why = actionReasons(
    reasons,
    offers,
    selectedCards.length,
    (view?.round?.discard_pile.length ?? 0) === 0,
  );

  const send = async (move: Move): Promise<void> => {
    setBusy(true);
    setRefusal(null);
    const before = hand;
    const { data, error } = await api.POST("/games/{game_id}/moves", {
      params: { path: { game_id: gameId } },
      body: move,
      headers: { ...bearer(token), "Idempotency-Key": newIdempotencyKey() },
    });
    if (data === undefined) setRefusal(refusalText(error));
    const fresh = await reload();
    setDrawn(move.type === "draw" && data !== undefined ? newCards(before, fresh?.hand ?? []) : []);
    setBusy(false);
  };

  if (missing !== null) {
    return (
      <main class="panel">
        <h2>{t("game_not_found")}</h2>
        <p>{missing}</p>
        <a href="#/">{t("back_to_lobby")}</a>
      </main>
    );
  }
  if (view === null) return <main class="panel">{t("loading")}</main>;

  const you = typeof view.you === "number" ? view.you : null;
  const name = (seat: number): string => seatName(view, seat, you);
  const myTurn = you !== null && view.status === "active" && view.round?.turn === you;
  document.title = myTurn ? t("your_turn_title", { brand: t("brand") }) : t("brand");
  noteTurn(gameId, myTurn && view.round !== null ? { round: view.round.number, phase: view.round.phase } : null);

  const leave = async (): Promise<void> => {
    stopFollowing.current();
    if (view.status !== "finished" && token !== null) {
      setBusy(true);
      const { error, response } = await api.POST("/games/{game_id}/leave", {
        params: { path: { game_id: gameId } },
        headers: bearer(token),
      });
      setBusy(false);
      // 401: the seat was already given up; anything else refused stays here.
      if (error !== undefined && response.status !== 401) {
        setRefusal(refusalText(error));
        setFollowRun(followRun + 1);
        return;
      }
    }
    forgetSeat(gameId);
    navigate("/");
  };

  return (
    <main class="game" data-round={view.round?.number ?? undefined}>
      <header class="game-header">
        <a href="#/" class="button">
          {t("lobby_link")}
        </a>
        <span>
          <strong>{presetName(view.preset)}</strong>
          {view.round !== null && ` · ${t("round_n", { n: view.round.number })}`}
          {` · ${t(`status_${view.status}`)}`}
          <RuleTags options={view.options as Record<string, unknown>} />
          {typeof view.pot === "number" && view.status !== "finished" && (
            <>
              {" "}
              <span class="tag pot">{t("pot", { chips: quantity(view.pot, "chip") })}</span>
            </>
          )}
        </span>
        {you !== null && (
          <LeaveButton
            finished={view.status === "finished"}
            waiting={view.status === "waiting"}
            busy={busy}
            onLeave={() => void leave()}
          />
        )}
      </header>
      {view.status === "waiting" && (
        <Waiting
          view={view}
          gameId={gameId}
          seat={saved}
          onJoined={setSaved}
          onWithdraw={() => stopFollowing.current()}
          onRefused={() => setFollowRun(followRun + 1)}
        />
      )}
      {you === null && view.status !== "waiting" && (
        <p class="panel watching" role="note">
          {t("watching")}
        </p>
      )}
      <Players view={view} name={name} acting={lastEvent?.seat ?? null} />
      {lastEvent !== null && (
        <p class="panel last-move" data-seq={lastEvent.seq} data-seat={lastEvent.seat ?? undefined}>
          <span key={lastEvent.seq} class="last-move-text">
            {describeEvent(lastEvent as EventLike, name, you)}
          </span>
          {waitingEvents > 0 && (
            <button type="button" class="link" onClick={() => pacer.current?.skip()}>
              {tn("skip_moves", waitingEvents)}
            </button>
          )}
        </p>
      )}
      <Alert text={refusal} onClose={() => setRefusal(null)} />
      {you !== null && view.status === "active" && (
        <HintPanel
          gameId={gameId}
          token={token}
          version={view.version}
          off={(view.options as { hints?: unknown }).hints === false}
          mine={legal.length > 0}
          onCards={(cards) => setSelected(indicesOf(hand, cards))}
        />
      )}
      {view.status === "active" && view.reengage != null && (
        <ReengageDecision
          view={view}
          offer={view.reengage}
          you={you}
          offers={offers}
          busy={busy}
          send={(m) => void send(m)}
        />
      )}
      {view.status === "finished" && (
        <GameOver view={view} gameId={gameId} name={name} saved={saved} you={you} />
      )}
      {view.status !== "finished" &&
        seenRound !== null &&
        view.rounds.length > 0 &&
        (view.rounds.length > seenRound || view.round === null) && (
          <RoundOver
            round={view.rounds[view.rounds.length - 1] as FinishedRound}
            name={name}
            you={you}
            // Between rounds (a re-engage decision) the result stays until the next deal.
            onClose={view.round === null ? undefined : () => setSeenRound(view.rounds.length)}
          />
        )}
      {view.round !== null && (
        <TableArea
          view={view}
          name={name}
          offers={offers}
          why={why}
          mine={myTurn}
          busy={busy}
          showPile={showPile}
          onTogglePile={() => setShowPile(!showPile)}
          send={(m) => void send(m)}
        />
      )}
      {you !== null && view.round !== null && (
        <Hand
          hand={hand}
          drawn={drawn}
          order={order}
          arrangement={arrangement}
          onArrange={(cards) => {
            setArrangement(cards);
            saveArrangement(gameId, cards);
          }}
          selected={selected}
          offers={offers}
          why={why}
          mine={myTurn}
          busy={busy}
          status={turnText(view, you, reasons)}
          turn={myTurn ? (view.round.phase === "draw" ? "draw" : "play") : "wait"}
          onOrder={(o) => {
            setOrder(o);
            setArrangement(null);
            saveArrangement(gameId, null);
            try {
              localStorage.setItem(SORT_KEY, o);
            } catch {
              /* storage off: the order lasts this page */
            }
          }}
          onToggle={(i) =>
            setSelected(selected.includes(i) ? selected.filter((j) => j !== i) : [...selected, i])
          }
          onSelect={(cards) => setSelected(indicesOf(hand, cards))}
          send={(m) => void send(m)}
        />
      )}
      {view.rounds.length > 0 && <ScoreSheet view={view} name={name} />}
      <HowToPlay options={view.options as Record<string, unknown>} players={view.seats.length} />
      <section class="panel log" aria-label={t("recent_events")}>
        <h2>{t("recent_events")}</h2>
        {you !== null && view.status !== "finished" && <SoundToggle />}
        <ul aria-live="polite" tabIndex={0} aria-label={t("recent_events")}>
          {[...log].reverse().map((event) => (
            <li key={event.seq} class={event.seq === lastEvent?.seq ? "last" : undefined}>
              {describeEvent(event as EventLike, name, you)}
            </li>
          ))}
        </ul>
      </section>
    </main>
  );
}

/** The Hint button on the seat's turn: the expert's move in words, its cards selected in
 * the hand; disabled, with the reason, when the game has hints off or it is not the
 * seat's turn. A hint is forgotten once the game moves on. */
function HintPanel(props: {
  gameId: string;
  token: string | null;
  version: number;
  off: boolean;
  mine: boolean;
  onCards: (cards: Card[]) => void;
}) {
  const [hint, setHint] = useState<{ version: number; hint: Hint } | null>(null);
  const [note, setNote] = useState<{ version: number; text: string } | null>(null);
  const [asking, setAsking] = useState(false);
  const ask = async (): Promise<void> => {
    setAsking(true);
    setNote(null);
    // Not through the retrying fetch: a 429 says when to ask again, at once.
    const { data, error, response } = await api.GET("/games/{game_id}/hint", {
      params: { path: { game_id: props.gameId } },
      headers: bearer(props.token),
      fetch: (request: Request) => fetch(request),
    });
    setAsking(false);
    if (data !== undefined) {
      setHint({ version: props.version, hint: data });
      props.onCards(hintCards(data.move));
    } else if (response.status === 429) {
      const seconds = Number(response.headers.get("Retry-After") ?? "1") || 1;
      const wait = t("seconds_short", { n: seconds });
      setNote({ version: props.version, text: t("hint_too_many", { seconds: wait }) });
    } else {
      setNote({ version: props.version, text: refusalText(error) });
    }
  };
  const why = props.off ? t("hint_off") : props.mine ? null : t("hint_your_turn_only");
  const shown = hint !== null && hint.version === props.version ? hintText(hint.hint) : null;
  const noted = note !== null && note.version === props.version ? note.text : null;
  return (
    <p class="panel hint" aria-live="polite">
      <button
        type="button"
        class="hint-button"
        disabled={why !== null || asking}
        aria-describedby={why !== null ? "hint-why" : undefined}
        onClick={() => void ask()}
      >
        {asking ? t("hint_thinking") : t("hint")}
      </button>{" "}
      {why !== null ? (
        <span id="hint-why" class="hint-why">
          {why}
        </span>
      ) : (
        <span class="hint-text">{shown ?? noted ?? ""}</span>
      )}
    </p>
  );
}

/** A meld's cards in words, each joker with the card it stands for. */
function meldWords(cards: readonly Card[], jokers: Readonly<Record<string, string>> = {}): string {
  return cards
    .map((card, i) => {
      const standsFor = jokers[String(i)];
      return standsFor !== undefined ? t("joker_for", { card: cardLabel(standsFor) }) : cardLabel(card);
    })
    .join(t("list_sep"));
}

/** How many suggestions of a kind show before the rest are folded away. */
const SUGGESTIONS_SHOWN = 6;

/** One kind of suggestion: those with the selected cards first, then the largest; past
 * the first few, folded under "+N more". */
function Suggestions<T>(props: {
  title: string;
  options: readonly T[];
  cardsOf: (option: T) => readonly Card[];
  selected: readonly Card[];
  render: (option: T) => preact.JSX.Element;
}) {
  if (props.options.length === 0) return null;
  const { shown, folded } = rankSuggestions(props.options, props.cardsOf, props.selected, SUGGESTIONS_SHOWN);
  return (
    <div class="suggestions">
      <span>{props.title}</span>
      {shown.map(props.render)}
      {folded.length > 0 && (
        <details class="more-suggestions">
          <summary>{tn("more_suggestions", folded.length)}</summary>
          {folded.map(props.render)}
        </details>
      )}
    </div>
  );
}

/** The cards of `after` that `before` did not hold (duplicates counted). */
export function newCards(before: readonly Card[], after: readonly Card[]): Card[] {
  const left = [...before];
  return after.filter((card) => {
    const i = left.indexOf(card);
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
}

/** Indices in `hand` of the `drawn` cards: the last copy of each (a drawn card joins the
 * hand's end). */
export function drawnIndices(hand: readonly Card[], drawn: readonly Card[]): number[] {
  const used = new Set<number>();
  for (const card of drawn) {
    for (let i = hand.length - 1; i >= 0; i--) {
      if (hand[i] === card && !used.has(i)) {
        used.add(i);
        break;
      }
    }
  }
  return [...used];
}

/** Indices in `hand` of `cards` (each index once, duplicates counted). */
export function indicesOf(hand: readonly Card[], cards: readonly Card[]): number[] {
  const used = new Set<number>();
  for (const card of cards) {
    const index = hand.findIndex((c, i) => c === card && !used.has(i));
    if (index >= 0) used.add(index);
  }
  return [...used];
}

/** A seat in words: "You" for the reader's own, a bot by its strategy ("greedy bot"),
 * else the player's name. */
export function seatName(view: GameView, seat: number, you: number | null): string {
  if (seat === you) return t("you_plain");
  const held = view.seats[seat];
  if (held === undefined) return t("seat_n", { n: seat + 1 });
  if (held.kind === "bot") {
    const bot = botOfSeat(held.name);
    if (bot !== null) {
      // A name, so capitalised even where the language writes "dator (girig)".
      const words = botWords(bot, "bot_name");
      return words.charAt(0).toLocaleUpperCase(language()) + words.slice(1);
    }
  }
  return held.name ?? t("seat_n", { n: seat + 1 });
}

export { turnText };

/** Leave, asked twice: in a game being played a bot takes the seat for good. */
function LeaveButton(props: { finished: boolean; waiting: boolean; busy: boolean; onLeave: () => void }) {
  const [asking, setAsking] = useState(false);
  if (props.finished) {
    return (
      <button type="button" onClick={props.onLeave}>
        {t("forget_game")}
      </button>
    );
  }
  if (!asking) {
    return (
      <button type="button" onClick={() => setAsking(true)}>
        {t("leave")}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={t("leave_this_game")}>
      {props.waiting ? t("give_up_seat") : t("bot_plays_seat")}{" "}
      <button type="button" class="danger" disabled={props.busy} onClick={props.onLeave}>
        {t("leave_game")}
      </button>{" "}
      <button type="button" onClick={() => setAsking(false)}>
        {t("stay")}
      </button>
    </span>
  );
}

function Waiting(props: {
  view: GameView;
  gameId: string;
  seat: SavedSeat | null;
  onJoined: (seat: SavedSeat) => void;
  onWithdraw: () => void;
  onRefused: () => void;
}) {
  const [name, setName] = useState(savedName());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const link = gameLink(props.gameId);
  const open = props.view.seats.some(isOpenSeat);

  const join = async (event: Event): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    saveName(name);
    const { data, error: problem } = await api.POST("/games/{game_id}/join", {
      params: { path: { game_id: props.gameId } },
      body: { name: name.trim(), client_seed: clientSeed() },
    });
    setBusy(false);
    if (data === undefined) {
      setError(refusalText(problem));
      return;
    }
    const seat = { token: data.token, seat: data.seat };
    saveSeat(props.gameId, seat);
    props.onJoined(seat);
  };

  /** The creator withdraws the game while nobody else has joined. */
  const withdraw = async (token: string): Promise<void> => {
    props.onWithdraw();
    setBusy(true);
    const { error: problem, response } = await api.DELETE("/games/{game_id}", {
      params: { path: { game_id: props.gameId } },
      headers: bearer(token),
    });
    setBusy(false);
    if (response.status !== 204) {
      setError(refusalText(problem));
      props.onRefused();
      return;
    }
    forgetSeat(props.gameId);
    navigate("/");
  };

  return (
    <section class="panel waiting">
      <h2>{t("waiting_for_players")}</h2>
      {props.seat !== null ? (
        <>
          <p>
            {t("send_link")}{" "}
            <input class="link-box" readOnly value={link} aria-label={t("game_link")} />
          </p>
          {props.seat.created !== undefined && (
            <button type="button" disabled={busy} onClick={() => void withdraw(props.seat?.token ?? "")}>
              {t("cancel_game")}
            </button>
          )}
        </>
      ) : open ? (
        <form onSubmit={(e) => void join(e)} aria-label={t("join_this_game")}>
          <label>
            {t("your_name")}{" "}
            <input
              value={name}
              maxLength={contract.nameMaxLength}
              required
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </label>{" "}
          <button type="submit" class="primary" disabled={busy || name.trim() === ""}>
            {t("join")}
          </button>
        </form>
      ) : (
        <p>{t("every_seat_taken")}</p>
      )}
      <Alert text={error} />
    </section>
  );
}

function Players(props: {
  view: GameView;
  name: (seat: number) => string;
  /** The seat whose move was shown last. */
  acting: number | null;
}) {
  const { view } = props;
  const turn = view.status === "active" ? view.round?.turn : null;
  const stakes = typeof view.pot === "number";
  // At the game's end every hand is shown as the last round left it.
  const last = view.rounds[view.rounds.length - 1];
  const revealed = view.status === "finished" && last !== undefined ? last.hands : null;
  return (
    <section class="players" aria-label={t("players")}>
      {view.seats.map((seat) => {
        const classes = [
          "player",
          seat.seat === turn ? "turn" : "",
          seat.eliminated ? "out" : "",
          seat.seat === props.acting ? "acting" : "",
        ];
        return (
          <div key={seat.seat} class={classes.join(" ")} aria-current={seat.seat === turn ? "true" : undefined}>
            <div class="player-name">
              {isOpenSeat(seat) ? t("open_seat") : props.name(seat.seat)}
              {seat.kind === "bot" && <span class="tag">{t("tag_bot")}</span>}
              {seat.seat === turn && <span class="tag turn-tag">{t("to_play")}</span>}
              {seat.seat === turn && typeof view.turn_deadline === "string" && (
                <TurnClock deadline={view.turn_deadline} now={view.now} />
              )}
              {seat.deciding === true && <span class="tag turn-tag">{t("deciding")}</span>}
              {seat.away === true && <span class="tag warn">{t("away")}</span>}
            </div>
            <div class="player-stats">
              {revealed === null && (
                <span aria-label={tn("cards_in_hand", seat.hand_size)}>🂠 {formatNumber(seat.hand_size)}</span>
              )}
              <span aria-label={t("score_label", { n: seat.score })}>{t("score", { n: seat.score })}</span>
              {seat.has_melded === true && <span class="tag">{t("melded")}</span>}
              {seat.eliminated === true && <span class="tag warn">{t("eliminated")}</span>}
              {(seat.reengaged ?? 0) > 0 && (
                <span class="tag">
                  {(seat.reengaged ?? 0) > 1 ? t("reengaged_times", { n: seat.reengaged ?? 0 }) : t("reengaged")}
                </span>
              )}
            </div>
            {revealed !== null && <RevealedHand cards={revealed[seat.seat] ?? []} />}
            {stakes && (
              <div
                class="player-stats chips"
                aria-label={t("chips_in_out", {
                  in: quantity(seat.chips_in ?? 0, "chip"),
                  out: quantity(seat.chips_out ?? 0, "chip"),
                })}
              >
                <span>{t("chips_in", { n: seat.chips_in ?? 0 })}</span>
                <span>{t("chips_out", { n: seat.chips_out ?? 0 })}</span>
              </div>
            )}
            {(seat.known_cards ?? []).length > 0 && (
              <div
                class="known"
                aria-label={t("known_to_hold", { cards: (seat.known_cards ?? []).map(cardLabel).join(t("list_sep")) })}
              >
                {t("holds", { cards: (seat.known_cards ?? []).map(cardText).join(" ") })}
              </div>
            )}
          </div>
        );
      })}
    </section>
  );
}

/** A hand shown at the game's end, as the last round left it. */
function RevealedHand(props: { cards: Card[] }) {
  if (props.cards.length === 0) return <div class="revealed muted">{t("no_cards_left")}</div>;
  return (
    <div class="revealed" aria-label={t("revealed_hand", { cards: props.cards.map(cardLabel).join(t("list_sep")) })}>
      <span class="cards">
        {props.cards.map((card, i) => (
          <CardButton key={i} card={card} small />
        ))}
      </span>
    </div>
  );
}

function MeldView(props: {
  meld: Meld;
  owner: string;
  layoff: Move | undefined;
  swap: Move | undefined;
  busy: boolean;
  send: (move: Move) => void;
}) {
  const { meld } = props;
  const jokers = (meld.jokers ?? {}) as Record<string, string>;
  return (
    <li class="meld">
      <span class="meld-label">
        {t("meld_label", { type: t(meld.type === "set" ? "meld_set" : "meld_run"), id: meld.id, owner: props.owner })}
      </span>
      <span class="cards">
        {meld.cards.map((card, i) => (
          <CardButton key={i} card={card} standsFor={jokers[String(i)]} small />
        ))}
      </span>
      {props.layoff !== undefined && (
        <button
          type="button"
          data-action="layoff"
          disabled={props.busy}
          onClick={() => props.send(props.layoff as Move)}
        >
          {t("lay_off_here")}
        </button>
      )}
      {props.swap !== undefined && (
        <button type="button" disabled={props.busy} onClick={() => props.send(props.swap as Move)}>
          {t("swap_joker")}
        </button>
      )}
    </li>
  );
}

function TableArea(props: {
  view: GameView;
  name: (seat: number) => string;
  offers: Offer;
  why: ActionReasons;
  /** The reader's turn: the reasons are shown beside the buttons (else in their titles). */
  mine: boolean;
  busy: boolean;
  showPile: boolean;
  onTogglePile: () => void;
  send: (move: Move) => void;
}) {
  const round = props.view.round;
  if (round === null) return null;
  const { offers, busy, why, mine } = props;
  const pile = round.discard_pile;
  const top = pile[pile.length - 1];
  return (
    <section class="table" aria-label={t("table")}>
      <div class="piles">
        <div class="pile">
          <CardBack label={t("stock_label", { cards: quantity(round.stock_size, "card") })}>
            {formatNumber(round.stock_size)}
          </CardBack>
          <button
            type="button"
            class="primary"
            data-action="draw-stock"
            disabled={busy || offers.drawStock === null}
            aria-describedby={why.drawStock !== null && mine ? "why-draw-stock" : undefined}
            title={why.drawStock ?? undefined}
            onClick={() => offers.drawStock && props.send(offers.drawStock)}
          >
            {t("draw_stock")}
          </button>
        </div>
        <div class="pile">
          {top !== undefined ? <CardButton key={`${pile.length}:${top}`} card={top} /> : <span class="card empty">{t("empty")}</span>}
          <button
            type="button"
            disabled={busy || offers.drawDiscard === null}
            aria-describedby={why.drawDiscard !== null && mine ? "why-draw-discard" : undefined}
            title={why.drawDiscard ?? undefined}
            onClick={() => offers.drawDiscard && props.send(offers.drawDiscard)}
            aria-label={
              top !== undefined
                ? shownThenSaid(
                    t("take_card", { card: cardText(top) }),
                    t("take_card_label", { card: cardLabel(top) }),
                  )
                : undefined
            }
          >
            {top !== undefined ? t("take_card", { card: cardText(top) }) : t("take_discard")}
          </button>
          <button type="button" class="link" onClick={props.onTogglePile} aria-expanded={props.showPile}>
            {props.showPile ? t("hide_pile") : t("whole_pile", { n: pile.length })}
          </button>
        </div>
      </div>
      {mine && (why.drawStock !== null || why.drawDiscard !== null) && (
        <div class="reasons">
          {why.drawStock !== null && (
            <p class="reason" id="why-draw-stock" data-for="draw-stock">
              {t("draw_stock")}: {why.drawStock}
            </p>
          )}
          {why.drawDiscard !== null && why.drawDiscard !== why.drawStock && (
            <p class="reason" id="why-draw-discard" data-for="draw-discard">
              {top !== undefined ? t("take_card", { card: cardText(top) }) : t("take_discard")}: {why.drawDiscard}
            </p>
          )}
        </div>
      )}
      {props.showPile && (
        <div class="cards whole-pile" role="group" aria-label={t("pile_bottom_to_top")}>
          {pile.map((card, i) => (
            <CardButton key={i} card={card} small />
          ))}
        </div>
      )}
      <h2 class="sr-only">{t("melds_on_table")}</h2>
      {round.melds.length === 0 ? (
        <p class="muted">{t("no_melds_yet")}</p>
      ) : (
        <ul class="melds">
          {round.melds.map((meld) => (
            <MeldView
              key={meld.id}
              meld={meld}
              owner={typeof meld.owner === "number" ? props.name(meld.owner) : ""}
              layoff={offers.layoffs.get(meld.id)}
              swap={offers.swaps.get(meld.id)}
              busy={busy}
              send={props.send}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function Hand(props: {
  hand: Card[];
  order: SortOrder;
  selected: number[];
  offers: Offer;
  why: ActionReasons;
  /** The reader's turn: the reasons are shown beside the buttons (else in their titles). */
  mine: boolean;
  busy: boolean;
  status: string;
  /** The reader's turn and its phase, for scripts and tests whatever the language. */
  turn: "draw" | "play" | "wait";
  onOrder: (order: SortOrder) => void;
  /** The reader's own order, which replaces the sort until a sort is chosen again. */
  arrangement: Card[] | null;
  onArrange: (cards: Card[]) => void;
  onToggle: (index: number) => void;
  onSelect: (cards: Card[]) => void;
  send: (move: Move) => void;
  /** Cards the reader just drew, marked in the hand. */
  drawn: Card[];
}) {
  const { offers, busy, why } = props;
  const fresh = new Set(drawnIndices(props.hand, props.drawn));
  const selectedCards = props.selected.map((i) => props.hand[i]).filter((c): c is Card => c !== undefined);
  const indexed = props.hand.map((card, index) => ({ card, index }));
  const shownOrder =
    props.arrangement !== null ? arrange(props.hand, props.arrangement) : sortHand(props.hand, props.order);
  const sorted = shownOrder.map((card) => {
    const at = indexed.findIndex((entry) => entry.card === card);
    const [entry] = indexed.splice(at, 1);
    return entry as { card: Card; index: number };
  });
  /** Where a card was picked up to be dragged (its place in the shown order). */
  const dragFrom = useRef<number | null>(null);
  /** The place to focus once the hand shows a card moved by the keyboard. */
  const focusAt = useRef<number | null>(null);
  const row = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focusAt.current === null) return;
    row.current?.querySelectorAll<HTMLButtonElement>("button.card")[focusAt.current]?.focus();
    focusAt.current = null;
  });
  const move = (from: number, to: number): void => {
    if (from === to || to < 0 || to >= shownOrder.length) return;
    props.onArrange(moveCard(shownOrder, from, to));
  };
  const onlySelected = props.selected.length === 1 ? sorted.findIndex((e) => e.index === props.selected[0]) : -1;
  const placeOf = (event: Event): number | null => {
    const card = (event.target as HTMLElement).closest<HTMLElement>("button.card");
    return card?.dataset.pos !== undefined ? Number(card.dataset.pos) : null;
  };
  return (
    <section class="panel hand" aria-label={t("your_hand")} aria-busy={busy}>
      <p class="status" aria-live="polite" data-turn={props.turn}>
        {props.status}
      </p>
      <div class="hand-tools">
        <span>{t("sort_by")}</span>
        <button
          type="button"
          aria-pressed={props.arrangement === null && props.order === "rank"}
          onClick={() => props.onOrder("rank")}
        >
          {t("sort_rank")}
        </button>
        <button
          type="button"
          aria-pressed={props.arrangement === null && props.order === "suit"}
          onClick={() => props.onOrder("suit")}
        >
          {t("sort_suit")}
        </button>
        <button
          type="button"
          data-action="move-left"
          disabled={onlySelected <= 0}
          onClick={() => move(onlySelected, onlySelected - 1)}
        >
          {t("move_left")}
        </button>
        <button
          type="button"
          data-action="move-right"
          disabled={onlySelected < 0 || onlySelected >= sorted.length - 1}
          onClick={() => move(onlySelected, onlySelected + 1)}
        >
          {t("move_right")}
        </button>
        <span class="muted hint" id="arrange-hint">
          {t("arrange_hint")}
        </span>
      </div>
      <div
        class="cards hand-cards"
        role="group"
        aria-label={t("cards_in_your_hand")}
        aria-describedby="arrange-hint"
        ref={row}
        onKeyDown={(event) => {
          const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
          const at = placeOf(event);
          if (event.shiftKey && step !== 0 && at !== null) {
            event.preventDefault();
            focusAt.current = Math.max(0, Math.min(sorted.length - 1, at + step));
            move(at, at + step);
          } else {
            moveFocus(event);
          }
        }}
        onDragStart={(event) => {
          dragFrom.current = placeOf(event);
          event.dataTransfer?.setData("text/plain", String(dragFrom.current ?? ""));
        }}
        onDragOver={(event) => event.preventDefault()}
        onDrop={(event) => {
          event.preventDefault();
          const to = placeOf(event);
          if (dragFrom.current !== null && to !== null) move(dragFrom.current, to);
          dragFrom.current = null;
        }}
      >
        {sorted.map(({ card, index }, place) => (
          <CardButton
            key={index}
            card={card}
            place={place}
            selected={props.selected.includes(index)}
            drawn={fresh.has(index)}
            onClick={() => props.onToggle(index)}
          />
        ))}
      </div>
      <div class="actions">
        <button
          type="button"
          data-action="meld"
          disabled={busy || offers.meld === null}
          aria-describedby={why.meld !== null && props.mine ? "why-meld" : undefined}
          title={why.meld ?? undefined}
          onClick={() => offers.meld && props.send(offers.meld)}
        >
          {t("meld_selected")}
        </button>
        <button
          type="button"
          class="primary"
          data-action="discard"
          disabled={busy || offers.discard === null}
          aria-describedby={why.discard !== null && props.mine ? "why-discard" : undefined}
          title={why.discard ?? undefined}
          onClick={() => offers.discard && props.send(offers.discard)}
        >
          {t("discard_selected")}
        </button>
      </div>
      {props.mine && (why.meld !== null || why.discard !== null) && (
        <div class="reasons">
          {why.meld !== null && (
            <p class="reason" id="why-meld" data-for="meld">
              {t("meld_selected")}: {why.meld}
            </p>
          )}
          {why.discard !== null && (
            <p class="reason" id="why-discard" data-for="discard">
              {t("discard_selected")}: {why.discard}
            </p>
          )}
        </div>
      )}
      <Suggestions
        title={t("layoffs_you_can_make")}
        options={offers.layoffOptions}
        cardsOf={(option) => option.cards}
        selected={selectedCards}
        render={(option) => (
          <button
            type="button"
            class="suggestion layoff-suggestion"
            key={`${option.meld}:${option.cards.join(",")}`}
            aria-label={shownThenSaid(
              `${option.cards.map(cardText).join(" ")} → #${option.meld}`,
              t("layoff_suggestion", {
                cards: option.cards.map(cardLabel).join(t("list_sep")),
                meld: option.meld,
              }),
            )}
            onClick={() => props.onSelect(option.cards)}
          >
            {option.cards.map(cardText).join(" ")} → #{option.meld}
          </button>
        )}
      />
      <Suggestions
        title={t("jokers_you_can_take")}
        options={offers.swapOptions}
        cardsOf={(option) => [option.card]}
        selected={selectedCards}
        render={(option) => (
          <button
            type="button"
            class="suggestion swap-suggestion"
            key={`${option.meld}:${option.card}`}
            aria-label={shownThenSaid(
              `${cardText(option.card)} ⇄ ★ #${option.meld}`,
              t("swap_suggestion", { card: cardLabel(option.card), meld: option.meld }),
            )}
            onClick={() => props.onSelect([option.card])}
          >
            {cardText(option.card)} ⇄ ★ #{option.meld}
          </button>
        )}
      />
      <Suggestions
        title={t("melds_you_can_make")}
        options={offers.melds}
        cardsOf={(meld) => meld.cards}
        selected={selectedCards}
        render={({ cards, layout }) => (
          <button
            type="button"
            class="suggestion meld-suggestion"
            key={cards.join(",")}
            aria-label={shownThenSaid(
              layout !== null ? meldText(layout) : cardsText(cards),
              t("select_cards", { cards: meldWords(layout?.cards ?? cards, layout?.jokers) }),
            )}
            onClick={() => props.onSelect(cards)}
          >
            {layout !== null ? meldText(layout) : cardsText(cards)}
          </button>
        )}
      />
    </section>
  );
}

/** The seat to decide chooses from its legal moves; everyone else sees who decides. */
function ReengageDecision(props: {
  view: GameView;
  offer: ReengageOffer;
  you: number | null;
  offers: Offer;
  busy: boolean;
  send: (move: Move) => void;
}) {
  const { view, offer, offers, busy } = props;
  const deciding = offers.reengage !== null || offers.declineReengage !== null;
  const waiting = reengageWaiting(view, props.you);
  const clock =
    typeof offer.deadline === "string" ? <TurnClock deadline={offer.deadline} now={view.now} /> : null;
  const score = props.you === null ? undefined : view.seats[props.you]?.score;
  return (
    <section class="panel reengage" aria-label={t("reengage")}>
      {deciding && (
        <>
          <h2>
            {typeof score === "number"
              ? t("you_eliminated_with", { points: quantity(score, "point") })
              : t("you_eliminated")}
          </h2>
          <p>{t("reengage_explain")}</p>
          <div class="actions">
            <button
              type="button"
              class="primary"
              data-action="reengage"
              disabled={busy || offers.reengage === null}
              onClick={() => offers.reengage && props.send(offers.reengage)}
            >
              {reengageLabel(offer)}
            </button>
            <button
              type="button"
              data-action="decline-reengage"
              disabled={busy || offers.declineReengage === null}
              onClick={() => offers.declineReengage && props.send(offers.declineReengage)}
            >
              {t("decline")}
            </button>
            {clock}
          </div>
        </>
      )}
      {waiting !== null && (
        <p class="status" aria-live="polite">
          {waiting} {!deciding && clock}
        </p>
      )}
    </section>
  );
}

function RoundOver(props: {
  round: FinishedRound;
  name: (seat: number) => string;
  you: number | null;
  onClose?: (() => void) | undefined;
}) {
  const { round } = props;
  const winner = typeof round.winner === "number" ? props.name(round.winner) : null;
  return (
    <section class="panel round-over" aria-label={t("round_result", { n: round.number })}>
      <h2>
        {winner === null
          ? t("round_over", { n: round.number })
          : round.winner === props.you
            ? t("round_over_went_out_you", { n: round.number })
            : t("round_over_went_out", { n: round.number, name: winner })}
        {round.rummy === true ? t("with_rummy") : ""}
      </h2>
      <table>
        <thead>
          <tr>
            <th>{t("player")}</th>
            <th>{t("cards_left")}</th>
            <th>{t("points_head")}</th>
          </tr>
        </thead>
        <tbody>
          {round.hands.map((cards, seat) => (
            <tr key={seat}>
              <td>{props.name(seat)}</td>
              <td class="cards">
                {cards.length === 0 ? "—" : cards.map((c, i) => <CardButton key={i} card={c} small />)}
              </td>
              <td>{round.points[seat] ?? 0}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.onClose !== undefined && (
        <button type="button" class="primary" onClick={props.onClose}>
          {t("continue")}
        </button>
      )}
    </section>
  );
}

function GameOver(props: {
  view: GameView;
  gameId: string;
  name: (seat: number) => string;
  saved: SavedSeat | null;
  you: number | null;
}) {
  const { view } = props;
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const winnerSeats = view.winners ?? [];
  const winners = winnerSeats.map(props.name);
  const last = view.rounds[view.rounds.length - 1];
  const stakes = typeof view.pot === "number";
  const rematch = async (): Promise<void> => {
    if (props.saved === null) return;
    setBusy(true);
    const { data, error: problem } = await api.POST("/games/{game_id}/rematch", {
      params: { path: { game_id: props.gameId } },
      headers: bearer(props.saved.token),
    });
    setBusy(false);
    if (data === undefined) {
      setError(refusalText(problem));
      return;
    }
    saveSeat(data.game.id, { token: data.token, seat: data.seat });
    navigate(`/games/${data.game.id}`);
  };
  const again = async (): Promise<void> => {
    setBusy(true);
    const myName = view.seats[props.you ?? -1]?.name ?? savedName();
    const request: CreateGame = props.saved?.created ?? {
      preset: view.preset as CreateGame["preset"],
      seats: againSeats(view, myName ?? "Player"),
    };
    const refused = await createAndOpen(request);
    setError(
      refused === null
        ? null
        : [refused.text, ...refused.fields.map((f) => t("field_error", { field: f.path, message: f.message }))].join(
            " ",
          ),
    );
    setBusy(false);
  };
  return (
    <section class="panel game-over" aria-label={t("game_over")}>
      <h2>
        {winners.length === 0
          ? t("game_over")
          : winnerSeats.length === 1 && winnerSeats[0] === props.you
            ? t("game_over_won_you")
            : tn("game_over_won", winners.length, { names: joinNames(winners) })}
      </h2>
      <table class="scores">
        <thead>
          <tr>
            <th>{t("player")}</th>
            <th>{t("total")}</th>
            {stakes && <th>{t("chips_in_head")}</th>}
            {stakes && <th>{t("payout")}</th>}
          </tr>
        </thead>
        <tbody>
          {view.seats.map((seat) => (
            <tr key={seat.seat} class={view.winners?.includes(seat.seat) === true ? "winner" : ""}>
              <td>{props.name(seat.seat)}</td>
              <td>{seat.score}</td>
              {stakes && <td>{formatNumber(seat.chips_in ?? 0)}</td>}
              {stakes && <td>{formatNumber(seat.chips_out ?? 0)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
      {last !== undefined && <RoundOver round={last} name={props.name} you={props.you} />}
      <p>
        <a href={`#${replayPath(props.gameId)}`} class="review-game">
          {t("review_game")}
        </a>
      </p>
      <Alert text={error} />
      {props.you !== null && props.saved !== null && otherPeople(view) ? (
        // With other people: the same players at a new table, each following in.
        <button type="button" class="primary rematch" disabled={busy} onClick={() => void rematch()}>
          {(view.next_game ?? null) === null ? t("rematch") : t("join_rematch")}
        </button>
      ) : (
        props.you !== null && (
          <button type="button" class="primary" disabled={busy} onClick={() => void again()}>
            {t("play_again")}
          </button>
        )
      )}
    </section>
  );
}

/** Points of every finished round and the totals. */
function ScoreSheet(props: { view: GameView; name: (seat: number) => string }) {
  const { view } = props;
  return (
    <details class="panel score-sheet">
      <summary>{t("score_sheet")}</summary>
      <table>
        <thead>
          <tr>
            <th>{t("round_head")}</th>
            {view.seats.map((seat) => (
              <th key={seat.seat}>{props.name(seat.seat)}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {view.rounds.map((round) => (
            <tr key={round.number}>
              <td>{round.number}</td>
              {view.seats.map((seat) => (
                <td key={seat.seat}>{round.points[seat.seat] ?? 0}</td>
              ))}
            </tr>
          ))}
          <tr class="total">
            <td>{t("total")}</td>
            {view.seats.map((seat) => (
              <td key={seat.seat}>{seat.score}</td>
            ))}
          </tr>
        </tbody>
      </table>
    </details>
  );
}

/** Left and right arrows move between the cards of a row (Space or Enter selects). */
function moveFocus(event: KeyboardEvent): void {
  const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
  if (step === 0) return;
  const row = event.currentTarget as HTMLElement;
  const cards = Array.from(row.querySelectorAll<HTMLButtonElement>("button.card"));
  const at = cards.indexOf(document.activeElement as HTMLButtonElement);
  const next = cards[Math.min(cards.length - 1, Math.max(0, at + step))];
  if (next !== undefined) {
    next.focus();
    event.preventDefault();
  }
}

/** Seconds left of the turn, counted down from the server's deadline (and its clock). */
export function secondsLeft(deadline: string, serverNow: string | undefined, loadedAt: number, at: number): number {
  const skew = serverNow === undefined ? 0 : Date.parse(serverNow) - loadedAt;
  return Math.max(0, Math.ceil((Date.parse(deadline) - (at + skew)) / 1000));
}

function TurnClock(props: { deadline: string; now?: string | undefined }) {
  // The server's `now` is of the view just fetched: the skew is measured from when it came.
  const loadedAt = useMemo(() => Date.now(), [props.now]);
  const [, setTicks] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTicks((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = secondsLeft(props.deadline, props.now, loadedAt, Date.now());
  return (
    <span class="tag clock" role="timer" aria-label={tn("seconds_left", left)}>
      ⏱ {t("seconds_short", { n: left })}
    </span>
  );
}
