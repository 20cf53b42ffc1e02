/** A game's page: the join form while a seat is open, then the table, live. */

import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import {
  type CreateGame,
  type FinishedRound,
  type GameEvent,
  type GameView,
  type LegalMove,
  type Meld,
  type Move,
  type SeatSpec,
  api,
  bearer,
  newIdempotencyKey,
  problemText,
} from "./api/client";
import { type Card, type SortOrder, cardLabel, cardText, sortHand } from "./cards";
import { Alert, CardBack, CardButton } from "./components";
import { contract } from "./contract";
import { type EventLike, describeEvent, formatNumber, quantity } from "./events";
import { follow, sseEvents } from "./live";
import { createAndOpen } from "./lobby";
import { type Offer, offer } from "./moves";
import { gameLink, navigate } from "./router";
import { type SavedSeat, forgetSeat, loadSeat, saveName, saveSeat, savedName } from "./storage";

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
  const chips = typeof offer.chips === "number" ? ` for ${quantity(offer.chips, "chip", locale)}` : "";
  return `Re-engage with ${quantity(offer.score, "point", locale)}${chips}`;
}

/** For everyone but the seats deciding: "Waiting for Bob to decide whether to re-engage…";
 * null when no other seat is deciding. */
export function reengageWaiting(view: GameView, you: number | null): string | null {
  const others = (view.reengage?.seats ?? []).filter((seat) => seat !== you);
  if (others.length === 0) return null;
  const who = others.map((seat) => view.seats[seat]?.name ?? `seat ${seat + 1}`).join(" and ");
  return `Waiting for ${who} to decide whether to re-engage…`;
}

/** Seats for "play again": the same bots, me, and open seats for the other people. */
export function againSeats(view: GameView, name: string): SeatSpec[] {
  return view.seats.map((seat): SeatSpec => {
    if (seat.seat === view.you) return { name };
    if (seat.kind === "bot") {
      // The view names a bot seat after its strategy ("greedy bot").
      const strategy = contract.bots.find((bot) => String(seat.name ?? "").startsWith(bot));
      return { bot: (strategy ?? contract.bots[0] ?? "greedy") as NonNullable<SeatSpec["bot"]> };
    }
    return { name: null };
  });
}

export function GamePage(props: { gameId: string }) {
  const { gameId } = props;
  const [saved, setSaved] = useState<SavedSeat | null>(() => loadSeat(gameId));
  const token = saved?.token ?? null;
  const [view, setView] = useState<GameView | null>(null);
  const [legal, setLegal] = useState<LegalMove[]>([]);
  const [missing, setMissing] = useState<string | null>(null);
  const [log, setLog] = useState<{ seq: number; text: string }[]>([]);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState<number[]>([]);
  const [order, setOrder] = useState<SortOrder>(loadSort);
  const [showPile, setShowPile] = useState(false);
  const [seenRound, setSeenRound] = useState<number | null>(null);
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
          setMissing(problemText(viewAnswer.error, "No such game."));
        } else {
          setRefusal(problemText(viewAnswer.error));
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
      return fresh;
    }
    return latest.current;
  }, [gameId, token]);

  useEffect(() => {
    latest.current = null;
    setView(null);
    setLog([]);
    setSelected([]);
    const controller = new AbortController();
    stopFollowing.current = () => controller.abort();
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
            if (data === undefined) throw new Error(problemText(error));
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
            setLog((before) => [...before, ...events.map(describe)].slice(-LOG_LENGTH));
            void reload();
          },
          done: () => latest.current?.status === "finished",
        },
        controller.signal,
      );
    };
    const describe = (event: GameEvent): { seq: number; text: string } => {
      const current = latest.current;
      const you = typeof current?.you === "number" ? current.you : null;
      const name = (seat: number): string =>
        seat === you ? "You" : (current?.seats[seat]?.name ?? `Seat ${seat + 1}`);
      return { seq: event.seq, text: describeEvent(event as EventLike, name, you) };
    };
    void run();
    return () => controller.abort();
  }, [gameId, token, reload, followRun]);

  const hand = view?.hand ?? [];
  const handKey = hand.join(",");
  useEffect(() => setSelected([]), [handKey]);

  const selectedCards = selected.map((i) => hand[i]).filter((c): c is Card => c !== undefined);
  const offers = useMemo(() => offer(legal, selectedCards), [legal, selectedCards.join(",")]);

  const send = async (move: Move): Promise<void> => {
    setBusy(true);
    setRefusal(null);
    const { data, error } = await api.POST("/games/{game_id}/moves", {
      params: { path: { game_id: gameId } },
      body: move,
      headers: { ...bearer(token), "Idempotency-Key": newIdempotencyKey() },
    });
    if (data === undefined) setRefusal(problemText(error));
    await reload();
    setBusy(false);
  };

  if (missing !== null) {
    return (
      <main class="panel">
        <h2>Game not found</h2>
        <p>{missing}</p>
        <a href="#/">Back to the lobby</a>
      </main>
    );
  }
  if (view === null) return <main class="panel">Loading…</main>;

  const you = typeof view.you === "number" ? view.you : null;
  const name = (seat: number): string =>
    seat === you ? "You" : (view.seats[seat]?.name ?? `Seat ${seat + 1}`);

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
        setRefusal(problemText(error));
        setFollowRun(followRun + 1);
        return;
      }
    }
    forgetSeat(gameId);
    navigate("/");
  };

  return (
    <main class="game">
      <header class="game-header">
        <a href="#/" class="button">
          ← Lobby
        </a>
        <span>
          <strong>{view.preset}</strong>
          {view.round !== null && ` · round ${view.round.number}`}
          {` · ${view.status}`}
          {typeof view.pot === "number" && view.status !== "finished" && (
            <>
              {" "}
              <span class="tag pot">pot {quantity(view.pot, "chip")}</span>
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
      <Players view={view} name={name} />
      <Alert text={refusal} onClose={() => setRefusal(null)} />
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
        <GameOver view={view} name={name} saved={saved} you={you} />
      )}
      {view.status !== "finished" &&
        seenRound !== null &&
        view.rounds.length > 0 &&
        (view.rounds.length > seenRound || view.round === null) && (
          <RoundOver
            round={view.rounds[view.rounds.length - 1] as FinishedRound}
            name={name}
            // Between rounds (a re-engage decision) the result stays until the next deal.
            onClose={view.round === null ? undefined : () => setSeenRound(view.rounds.length)}
          />
        )}
      {view.round !== null && (
        <TableArea
          view={view}
          name={name}
          offers={offers}
          busy={busy}
          showPile={showPile}
          onTogglePile={() => setShowPile(!showPile)}
          send={(m) => void send(m)}
        />
      )}
      {you !== null && view.round !== null && (
        <Hand
          hand={hand}
          order={order}
          selected={selected}
          offers={offers}
          busy={busy}
          status={turnText(view, you)}
          onOrder={(o) => {
            setOrder(o);
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
      <section class="panel log" aria-label="Recent events">
        <h2>Recent events</h2>
        <ul aria-live="polite">
          {[...log].reverse().map((entry) => (
            <li key={entry.seq}>{entry.text}</li>
          ))}
        </ul>
      </section>
    </main>
  );
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

export function turnText(view: GameView, you: number | null): string {
  const round = view.round;
  if (view.status === "waiting") return "Waiting for players to join.";
  if (view.status === "finished") return "The game is over.";
  if (round === null) return "Waiting for the next deal.";
  if (round.turn === null) return "";
  if (round.turn !== you) {
    const seat = view.seats[round.turn];
    return `Waiting for ${seat?.name ?? `seat ${round.turn + 1}`}…`;
  }
  return round.phase === "draw"
    ? "Your turn: draw from the stock or the discard pile."
    : "Your turn: meld or lay off if you like, then discard a card.";
}

/** Leave, asked twice: in a game being played a bot takes the seat for good. */
function LeaveButton(props: { finished: boolean; waiting: boolean; busy: boolean; onLeave: () => void }) {
  const [asking, setAsking] = useState(false);
  if (props.finished) {
    return (
      <button type="button" onClick={props.onLeave}>
        Forget this game
      </button>
    );
  }
  if (!asking) {
    return (
      <button type="button" onClick={() => setAsking(true)}>
        Leave
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label="Leave this game?">
      {props.waiting ? "Give up your seat?" : "A bot will play your seat."}{" "}
      <button type="button" class="danger" disabled={props.busy} onClick={props.onLeave}>
        Leave game
      </button>{" "}
      <button type="button" onClick={() => setAsking(false)}>
        Stay
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
      body: { name: name.trim() },
    });
    setBusy(false);
    if (data === undefined) {
      setError(problemText(problem));
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
      setError(problemText(problem));
      props.onRefused();
      return;
    }
    forgetSeat(props.gameId);
    navigate("/");
  };

  return (
    <section class="panel waiting">
      <h2>Waiting for players</h2>
      {props.seat !== null ? (
        <>
          <p>
            Send this link to a friend:{" "}
            <input class="link-box" readOnly value={link} aria-label="Game link" />
          </p>
          {props.seat.created !== undefined && (
            <button type="button" disabled={busy} onClick={() => void withdraw(props.seat?.token ?? "")}>
              Cancel this game
            </button>
          )}
        </>
      ) : open ? (
        <form onSubmit={(e) => void join(e)} aria-label="Join this game">
          <label>
            Your name{" "}
            <input
              value={name}
              maxLength={contract.nameMaxLength}
              required
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </label>{" "}
          <button type="submit" class="primary" disabled={busy || name.trim() === ""}>
            Join
          </button>
        </form>
      ) : (
        <p>Every seat is taken.</p>
      )}
      <Alert text={error} />
    </section>
  );
}

function Players(props: { view: GameView; name: (seat: number) => string }) {
  const { view } = props;
  const turn = view.status === "active" ? view.round?.turn : null;
  const stakes = typeof view.pot === "number";
  return (
    <section class="players" aria-label="Players">
      {view.seats.map((seat) => {
        const classes = ["player", seat.seat === turn ? "turn" : "", seat.eliminated ? "out" : ""];
        return (
          <div key={seat.seat} class={classes.join(" ")} aria-current={seat.seat === turn ? "true" : undefined}>
            <div class="player-name">
              {isOpenSeat(seat) ? "Open seat" : props.name(seat.seat)}
              {seat.kind === "bot" && <span class="tag">bot</span>}
              {seat.seat === turn && <span class="tag turn-tag">to play</span>}
              {seat.seat === turn && typeof view.turn_deadline === "string" && (
                <TurnClock deadline={view.turn_deadline} now={view.now} />
              )}
              {seat.deciding === true && <span class="tag turn-tag">deciding</span>}
              {seat.away === true && <span class="tag warn">away: the server plays</span>}
            </div>
            <div class="player-stats">
              <span aria-label={`${seat.hand_size} cards in hand`}>🂠 {seat.hand_size}</span>
              <span aria-label={`score ${seat.score}`}>Score {seat.score}</span>
              {seat.has_melded === true && <span class="tag">melded</span>}
              {seat.eliminated === true && <span class="tag warn">eliminated</span>}
              {(seat.reengaged ?? 0) > 0 && (
                <span class="tag">re-engaged{(seat.reengaged ?? 0) > 1 ? ` ×${seat.reengaged}` : ""}</span>
              )}
            </div>
            {stakes && (
              <div
                class="player-stats chips"
                aria-label={`${quantity(seat.chips_in ?? 0, "chip")} in, ${quantity(seat.chips_out ?? 0, "chip")} out`}
              >
                <span>Chips in {formatNumber(seat.chips_in ?? 0)}</span>
                <span>out {formatNumber(seat.chips_out ?? 0)}</span>
              </div>
            )}
            {(seat.known_cards ?? []).length > 0 && (
              <div
                class="known"
                aria-label={`known to hold ${(seat.known_cards ?? []).map(cardLabel).join(", ")}`}
              >
                holds {(seat.known_cards ?? []).map(cardText).join(" ")}
              </div>
            )}
          </div>
        );
      })}
    </section>
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
        {meld.type} #{meld.id} · {props.owner}
      </span>
      <span class="cards">
        {meld.cards.map((card, i) => (
          <CardButton key={i} card={card} standsFor={jokers[String(i)]} small />
        ))}
      </span>
      {props.layoff !== undefined && (
        <button type="button" disabled={props.busy} onClick={() => props.send(props.layoff as Move)}>
          Lay off here
        </button>
      )}
      {props.swap !== undefined && (
        <button type="button" disabled={props.busy} onClick={() => props.send(props.swap as Move)}>
          Swap for the joker
        </button>
      )}
    </li>
  );
}

function TableArea(props: {
  view: GameView;
  name: (seat: number) => string;
  offers: Offer;
  busy: boolean;
  showPile: boolean;
  onTogglePile: () => void;
  send: (move: Move) => void;
}) {
  const round = props.view.round;
  if (round === null) return null;
  const { offers, busy } = props;
  const pile = round.discard_pile;
  const top = pile[pile.length - 1];
  return (
    <section class="table" aria-label="Table">
      <div class="piles">
        <div class="pile">
          <CardBack label={`stock, ${round.stock_size} cards`}>{round.stock_size}</CardBack>
          <button
            type="button"
            class="primary"
            disabled={busy || offers.drawStock === null}
            onClick={() => offers.drawStock && props.send(offers.drawStock)}
          >
            Draw from stock
          </button>
        </div>
        <div class="pile">
          {top !== undefined ? <CardButton card={top} /> : <span class="card empty">empty</span>}
          <button
            type="button"
            disabled={busy || offers.drawDiscard === null}
            onClick={() => offers.drawDiscard && props.send(offers.drawDiscard)}
            aria-label={top !== undefined ? `Take ${cardLabel(top)} from the discard pile` : "Take the discard"}
          >
            Take {top !== undefined ? cardText(top) : ""}
          </button>
          <button type="button" class="link" onClick={props.onTogglePile} aria-expanded={props.showPile}>
            {props.showPile ? "Hide pile" : `Whole pile (${pile.length})`}
          </button>
        </div>
      </div>
      {props.showPile && (
        <div class="cards whole-pile" aria-label="Discard pile, bottom to top">
          {pile.map((card, i) => (
            <CardButton key={i} card={card} small />
          ))}
        </div>
      )}
      <h2 class="sr-only">Melds on the table</h2>
      {round.melds.length === 0 ? (
        <p class="muted">No melds on the table yet.</p>
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
  busy: boolean;
  status: string;
  onOrder: (order: SortOrder) => void;
  onToggle: (index: number) => void;
  onSelect: (cards: Card[]) => void;
  send: (move: Move) => void;
}) {
  const { offers, busy } = props;
  const indexed = props.hand.map((card, index) => ({ card, index }));
  const sorted = sortHand(props.hand, props.order).map((card) => {
    const at = indexed.findIndex((entry) => entry.card === card);
    const [entry] = indexed.splice(at, 1);
    return entry as { card: Card; index: number };
  });
  return (
    <section class="panel hand" aria-label="Your hand" aria-busy={busy}>
      <p class="status" aria-live="polite">
        {props.status}
      </p>
      <div class="hand-tools">
        <span>Sort by</span>
        <button type="button" aria-pressed={props.order === "rank"} onClick={() => props.onOrder("rank")}>
          rank
        </button>
        <button type="button" aria-pressed={props.order === "suit"} onClick={() => props.onOrder("suit")}>
          suit
        </button>
      </div>
      <div class="cards hand-cards" role="group" aria-label="Cards in your hand" onKeyDown={moveFocus}>
        {sorted.map(({ card, index }) => (
          <CardButton
            key={index}
            card={card}
            selected={props.selected.includes(index)}
            onClick={() => props.onToggle(index)}
          />
        ))}
      </div>
      <div class="actions">
        <button type="button" disabled={busy || offers.meld === null} onClick={() => offers.meld && props.send(offers.meld)}>
          Meld selected
        </button>
        <button
          type="button"
          class="primary"
          disabled={busy || offers.discard === null}
          onClick={() => offers.discard && props.send(offers.discard)}
        >
          Discard selected
        </button>
      </div>
      {offers.layoffOptions.length > 0 && (
        <div class="suggestions">
          <span>Lay-offs you can make:</span>
          {offers.layoffOptions.map((option) => (
            <button
              type="button"
              class="suggestion layoff-suggestion"
              key={`${option.meld}:${option.cards.join(",")}`}
              aria-label={`Select ${option.cards.map(cardLabel).join(", ")} to lay off on meld ${option.meld}`}
              onClick={() => props.onSelect(option.cards)}
            >
              {option.cards.map(cardText).join(" ")} → #{option.meld}
            </button>
          ))}
        </div>
      )}
      {offers.swapOptions.length > 0 && (
        <div class="suggestions">
          <span>Jokers you can take:</span>
          {offers.swapOptions.map((option) => (
            <button
              type="button"
              class="suggestion swap-suggestion"
              key={`${option.meld}:${option.card}`}
              aria-label={`Select ${cardLabel(option.card)} to swap for the joker of meld ${option.meld}`}
              onClick={() => props.onSelect([option.card])}
            >
              {cardText(option.card)} ⇄ ★ #{option.meld}
            </button>
          ))}
        </div>
      )}
      {offers.melds.length > 0 && (
        <div class="suggestions">
          <span>Melds you can make:</span>
          {offers.melds.map((cards) => (
            <button
              type="button"
              class="suggestion meld-suggestion"
              key={cards.join(",")}
              aria-label={`Select ${cards.map(cardLabel).join(", ")}`}
              onClick={() => props.onSelect(cards)}
            >
              {cards.map(cardText).join(" ")}
            </button>
          ))}
        </div>
      )}
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
    <section class="panel reengage" aria-label="Re-engage">
      {deciding && (
        <>
          <h2>
            You are eliminated{typeof score === "number" ? ` with ${quantity(score, "point")}` : ""}
          </h2>
          <p>Come back in at the next deal with the highest total among the players still in, or stay out.</p>
          <div class="actions">
            <button
              type="button"
              class="primary"
              disabled={busy || offers.reengage === null}
              onClick={() => offers.reengage && props.send(offers.reengage)}
            >
              {reengageLabel(offer)}
            </button>
            <button
              type="button"
              disabled={busy || offers.declineReengage === null}
              onClick={() => offers.declineReengage && props.send(offers.declineReengage)}
            >
              Decline
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

function RoundOver(props: { round: FinishedRound; name: (seat: number) => string; onClose?: () => void }) {
  const { round } = props;
  const winner = typeof round.winner === "number" ? props.name(round.winner) : null;
  return (
    <section class="panel round-over" aria-label={`Round ${round.number} result`}>
      <h2>
        Round {round.number} over{winner !== null ? `: ${winner} went out` : ""}
        {round.rummy === true ? " with rummy" : ""}
      </h2>
      <table>
        <thead>
          <tr>
            <th>Player</th>
            <th>Cards left</th>
            <th>Points</th>
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
          Continue
        </button>
      )}
    </section>
  );
}

function GameOver(props: {
  view: GameView;
  name: (seat: number) => string;
  saved: SavedSeat | null;
  you: number | null;
}) {
  const { view } = props;
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const winners = (view.winners ?? []).map(props.name);
  const last = view.rounds[view.rounds.length - 1];
  const stakes = typeof view.pot === "number";
  const again = async (): Promise<void> => {
    setBusy(true);
    const myName = view.seats[props.you ?? -1]?.name ?? savedName();
    const request: CreateGame = props.saved?.created ?? {
      preset: view.preset as CreateGame["preset"],
      seats: againSeats(view, myName ?? "Player"),
    };
    setError(await createAndOpen(request));
    setBusy(false);
  };
  return (
    <section class="panel game-over" aria-label="Game over">
      <h2>Game over{winners.length > 0 ? `: ${winners.join(" and ")} won` : ""}</h2>
      <table class="scores">
        <thead>
          <tr>
            <th>Player</th>
            <th>Total</th>
            {stakes && <th>Chips in</th>}
            {stakes && <th>Payout</th>}
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
      {last !== undefined && <RoundOver round={last} name={props.name} />}
      <Alert text={error} />
      {props.you !== null && (
        <button type="button" class="primary" disabled={busy} onClick={() => void again()}>
          Play again
        </button>
      )}
    </section>
  );
}

/** Points of every finished round and the totals. */
function ScoreSheet(props: { view: GameView; name: (seat: number) => string }) {
  const { view } = props;
  return (
    <details class="panel score-sheet">
      <summary>Score sheet</summary>
      <table>
        <thead>
          <tr>
            <th>Round</th>
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
            <td>Total</td>
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
    <span class="tag clock" role="timer" aria-label={`${left} seconds left`}>
      ⏱ {left} s
    </span>
  );
}
