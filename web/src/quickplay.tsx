/** Quick play: queue for a table of a preset and player count, wait, and go to its game. */

import { useEffect, useRef, useState } from "preact/hooks";
import { type Preset, type Schemas, api, bearer } from "./api/client";
import { Alert } from "./components";
import { presetName } from "./events";
import { t, tn } from "./i18n";
import { refusalText } from "./reasons";
import { navigate } from "./router";
import { saveSeat } from "./storage";

export type Ticket = Schemas["Ticket"];
type Held = { ticket: string; secret: string; view: Ticket };

/** A table's name ("standard:4") as its preset and player count. */
export function parseTable(table: string): { preset: string; players: number } {
  const at = table.lastIndexOf(":");
  return { preset: table.slice(0, at), players: Number(table.slice(at + 1)) };
}

/** "Standard for 4: 3 players waiting", for each table with someone waiting. */
export function demandLines(waiting: Record<string, number>): string[] {
  return Object.entries(waiting)
    .filter(([, count]) => count > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([table, count]) => {
      const { preset, players } = parseTable(table);
      return tn("players_waiting", count, { rules: presetName(preset), players });
    });
}

/** Seconds a ticket's long-poll asks to wait (the service's bound is 30). */
const POLL_WAIT = 25;

export function QuickPlay(props: { name: string; presets: Preset[]; range: (p: Preset | undefined) => [number, number] }) {
  const [chosen, setChosen] = useState("standard");
  const [players, setPlayers] = useState(4);
  const [bots, setBots] = useState(true);
  const [held, setHeld] = useState<Held | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The ticket being followed: a cancel or a new ticket ends the old loop.
  const following = useRef<string | null>(null);

  const preset = props.presets.find((p) => p.name === chosen);
  const [low, high] = props.range(preset);
  const counts = Array.from({ length: high - low + 1 }, (_, i) => low + i);

  useEffect(() => () => void (following.current = null), []);

  const follow = async (ticket: string, secret: string): Promise<void> => {
    while (following.current === ticket) {
      const { data, error: problem } = await api.GET("/queue/{ticket}", {
        params: { path: { ticket }, query: { wait: POLL_WAIT } },
        headers: bearer(secret),
      });
      if (following.current !== ticket) return;
      if (data === undefined) {
        following.current = null;
        setHeld(null);
        setError(refusalText(problem, t("quick_play_failed")));
        return;
      }
      if (data.status === "matched" && data.game && data.token && data.seat !== null) {
        following.current = null;
        saveSeat(data.game, { token: data.token, seat: data.seat });
        navigate(`/games/${data.game}`);
        return;
      }
      setHeld({ ticket, secret, view: data });
    }
  };

  const start = async (event: Event): Promise<void> => {
    event.preventDefault();
    const name = props.name.trim();
    if (name === "") {
      setError(t("enter_name_first"));
      return;
    }
    setBusy(true);
    setError(null);
    const { data, error: problem } = await api.POST("/queue", {
      body: {
        preset: chosen as NonNullable<Schemas["Enqueue"]["preset"]>,
        players: Math.min(Math.max(players, low), high),
        name,
        bots_allowed: bots,
      },
    });
    setBusy(false);
    if (data === undefined) {
      setError(refusalText(problem, t("quick_play_failed")));
      return;
    }
    following.current = data.ticket;
    setHeld({ ticket: data.ticket, secret: data.secret, view: data });
    void follow(data.ticket, data.secret);
  };

  const cancel = async (): Promise<void> => {
    if (held === null) return;
    following.current = null;
    const { response, error: problem } = await api.DELETE("/queue/{ticket}", {
      params: { path: { ticket: held.ticket } },
      headers: bearer(held.secret),
    });
    if (response.status === 409) {
      // Matched meanwhile: go to the game after all.
      following.current = held.ticket;
      void follow(held.ticket, held.secret);
      return;
    }
    setHeld(null);
    if (response.status !== 204 && response.status !== 404) setError(refusalText(problem));
  };

  if (held !== null) {
    const table = held.view.tables[0] ?? `${chosen}:${players}`;
    const { preset: rules, players: seats } = parseTable(table);
    return (
      <section class="panel quick-play" aria-label={t("quick_play")}>
        <h2>{t("quick_play")}</h2>
        <p role="status">{t("looking_for_players", { rules: presetName(rules), players: seats })}</p>
        <ul class="demand">
          {demandLines(held.view.waiting).map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
        {held.view.bots_allowed && <p class="muted">{t("bots_fill_later")}</p>}
        <button type="button" onClick={() => void cancel()}>
          {t("cancel_search")}
        </button>
      </section>
    );
  }

  return (
    <form class="panel quick-play" onSubmit={(e) => void start(e)} aria-label={t("quick_play")}>
      <h2>{t("quick_play")}</h2>
      <p class="muted">{t("quick_play_explain")}</p>
      <label>
        {t("rules")}{" "}
        <select value={chosen} onChange={(e) => setChosen(e.currentTarget.value)}>
          {props.presets.map((p) => (
            <option key={p.name} value={p.name}>
              {presetName(p.name)}
            </option>
          ))}
        </select>
      </label>{" "}
      <label>
        {t("players")}{" "}
        <select value={String(Math.min(Math.max(players, low), high))} onChange={(e) => setPlayers(Number(e.currentTarget.value))}>
          {counts.map((n) => (
            <option key={n} value={String(n)}>
              {n}
            </option>
          ))}
        </select>
      </label>
      <label class="option">
        <input type="checkbox" checked={bots} onChange={(e) => setBots(e.currentTarget.checked)} /> {t("bots_may_fill")}
      </label>
      <Alert text={error} />
      <button type="submit" class="primary" disabled={busy || preset === undefined}>
        {t("play_now")}
      </button>
    </form>
  );
}
