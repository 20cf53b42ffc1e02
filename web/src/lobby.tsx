/** The lobby: create a game (preset, seats, options), open games to join, my games. */

import { useEffect, useState } from "preact/hooks";
import {
  type CreateGame,
  type LobbyGame,
  type GameView,
  type Preset,
  type SeatSpec,
  api,
  bearer,
} from "./api/client";
import { Alert, RuleTags } from "./components";
import { type OptionSchema, contract } from "./contract";
import { botName, presetName } from "./events";
import { CATALOGUES, type TextKey, joinNames, language, t } from "./i18n";
import { refusalText } from "./reasons";
import { clientSeed } from "./seed";
import { HowToPlay } from "./rules";
import { navigate, replayPath } from "./router";
import { QuickPlay, demandLines } from "./quickplay";
import { forgetSeat, loadSeat, saveName, saveSeat, savedGames, savedName } from "./storage";

/** What a seat of the create form holds: me, an open seat, or a bot strategy's name. */
export type SeatChoice = "me" | "open" | string;

/** A level of the expert in words ("level 3, club"), by its number. */
export function levelWords(level: number): string {
  const name = contract.levels[String(level)] ?? "";
  const key = `level_${name}`;
  return t("level_words", { n: level, name: key in CATALOGUES.en ? t(key as TextKey) : name });
}

/** The bot and level of a bot seat from the name the view gives it ("expert3 bot"). */
export function botOfSeat(name: string | null | undefined): { bot: string; level?: number } | null {
  const levelled = /^expert(\d+) bot$/.exec(String(name ?? ""));
  if (levelled !== null && String(levelled[1]) in contract.levels) {
    return { bot: "expert", level: Number(levelled[1]) };
  }
  const strategy = contract.bots.find((bot) => String(name ?? "").startsWith(bot));
  return strategy === undefined ? null : { bot: strategy };
}

/** A bot seat in words, as `seat_bot` ("Bot (expert)") or `bot_name` ("expert bot") say
 * it, with its level when it has one ("Bot (expert, level 3: club)"). */
export function botWords(seat: { bot: string; level?: number }, key: "seat_bot" | "bot_name"): string {
  const strategy = botName(seat.bot);
  if (seat.level === undefined) return t(key, { strategy });
  return t(key === "seat_bot" ? "seat_bot_level" : "bot_name_level", { strategy, level: levelWords(seat.level) });
}

/** The choices for a seat other than mine: each bot of the contract (the expert at each
 * of its levels too), or open. */
function seatChoices(): { value: SeatChoice; label: string }[] {
  const levels = Object.keys(contract.levels).map(Number);
  return [
    ...contract.bots.flatMap((bot) => [
      { value: bot, label: t("seat_bot", { strategy: botName(bot) }) },
      ...(bot === "expert"
        ? levels.map((n) => ({ value: `expert:${n}`, label: botWords({ bot, level: n }, "seat_bot") }))
        : []),
    ]),
    { value: "open", label: t("seat_open_friend") },
  ];
}

/** A preset's description in words, the service's own when the page does not know it. */
export function presetDescription(preset: Preset): string {
  const key = `preset_${preset.name}_desc`;
  return key in CATALOGUES.en ? t(key as TextKey) : preset.description;
}

/** The seat counts a preset allows, [min, max] (the contract's 2–6 when it does not say). */
export function seatRange(preset: Preset | undefined): [number, number] {
  const players = (preset?.options as { players?: unknown } | undefined)?.players;
  if (Array.isArray(players) && typeof players[0] === "number" && typeof players[1] === "number") {
    return [players[0], players[1]];
  }
  return [2, 6];
}

/** An option's name in words ("max refills", "hámark áfyllinga"), its id when unknown. */
export function optionLabel(name: string): string {
  const key = `opt_${name}`;
  return key in CATALOGUES.en ? t(key as TextKey) : name.replace(/_/g, " ");
}

/** An option's value in words ("turn over", "snúið við"). */
export function optionValue(value: string): string {
  const key = `val_${value}`;
  return key in CATALOGUES.en ? t(key as TextKey) : value.replace(/_/g, " ");
}

/** One message of a refused request's `errors` (field → messages, nested for lists). */
export interface FieldError {
  /** The top field: "players", "seats", an option's name… */
  field: string;
  /** The whole path, "seats.0.name". */
  path: string;
  message: string;
}

/** The problem's `errors` as a flat list, in the order the service gave them. */
export function fieldErrors(errors: unknown, path: string[] = []): FieldError[] {
  if (typeof errors === "string") {
    return [{ field: path[0] ?? "", path: path.join("."), message: errors }];
  }
  if (Array.isArray(errors)) return errors.flatMap((e) => fieldErrors(e, path));
  if (typeof errors === "object" && errors !== null) {
    return Object.entries(errors).flatMap(([key, value]) => fieldErrors(value, [...path, key]));
  }
  return [];
}

/** A refused create: the words, and the messages per field. */
export interface Refusal {
  text: string;
  fields: FieldError[];
}
const DEFAULT_BOT = contract.bots.includes("greedy") ? "greedy" : (contract.bots[0] ?? "open");

/** The seats of a create request for the form's choices. */
export function seatSpecs(choices: readonly SeatChoice[], name: string, seed: () => string = clientSeed): SeatSpec[] {
  return choices.map((choice): SeatSpec => {
    switch (choice) {
      case "me":
        // My seat adds its own entropy to the deals (docs/fairness.md).
        return { name, client_seed: seed() };
      case "open":
        return { name: null };
      default: {
        const [bot, level] = choice.split(":");
        const seat: SeatSpec = { bot: bot as NonNullable<SeatSpec["bot"]> };
        return level === undefined ? seat : { ...seat, level: Number(level) };
      }
    }
  });
}

type OptionValue = unknown;

/** Options worth editing in a form: the scalar ones (lists and maps keep the preset's). */
function editable(value: OptionValue): boolean {
  return value === null || ["boolean", "number", "string"].includes(typeof value);
}

/** The overrides to send: only what differs from the preset. */
export function overrides(
  preset: Record<string, unknown>,
  edited: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(edited)) {
    if (value !== preset[key]) out[key] = value;
  }
  return out;
}

/** Create a game and go to its table; the token is kept for this browser. */
export async function createAndOpen(request: CreateGame): Promise<Refusal | null> {
  const { data, error } = await api.POST("/games", { body: request });
  if (data === undefined) {
    const problem = error as { errors?: unknown } | undefined;
    return { text: refusalText(error), fields: fieldErrors(problem?.errors) };
  }
  const mine = data.seats.find((seat) => typeof seat.token === "string");
  if (mine?.token !== undefined) {
    saveSeat(data.id, { token: mine.token, seat: mine.seat, created: request });
  }
  navigate(`/games/${data.id}`);
  return null;
}

function CreateForm(props: { name: string; presets: Preset[] }) {
  const { presets } = props;
  const [chosen, setChosen] = useState("express");
  const [seats, setSeats] = useState<SeatChoice[]>(["me", DEFAULT_BOT]);
  const [edited, setEdited] = useState<Record<string, unknown>>({});
  const [error, setError] = useState<Refusal | null>(null);
  const [busy, setBusy] = useState(false);

  const preset = presets.find((p) => p.name === chosen);
  const presetOptions = (preset?.options ?? {}) as Record<string, unknown>;
  const options = { ...presetOptions, ...edited };
  const [minSeats, maxSeats] = seatRange(preset);
  const fields = error?.fields ?? [];
  const errorsOf = (field: string): FieldError[] => fields.filter((f) => f.field === field);
  const shown = new Set(["players", "seats", ...Object.keys(options)]);
  const otherErrors = fields.filter((f) => !shown.has(f.field));

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const name = props.name.trim();
    if (name === "") {
      setError({ text: t("enter_name_first"), fields: [] });
      return;
    }
    if (seats.length > maxSeats || seats.length < minSeats) {
      const text = seats.length > maxSeats ? t("seats_full", { max: maxSeats }) : t("seats_too_few", { min: minSeats });
      setError({ text, fields: [] });
      return;
    }
    setBusy(true);
    setError(null);
    const request: CreateGame = {
      preset: chosen as CreateGame["preset"],
      seats: seatSpecs(seats, name),
    };
    const changed = overrides(presetOptions, edited);
    if (Object.keys(changed).length > 0) request.options = changed;
    const problem = await createAndOpen(request);
    setBusy(false);
    setError(problem);
  };

  const setSeat = (index: number, value: SeatChoice): void =>
    setSeats(seats.map((choice, i) => (i === index ? value : choice)));

  return (
    <form class="panel create" onSubmit={(e) => void submit(e)} aria-label={t("create_a_game")}>
      <h2>{t("new_game")}</h2>
      <label>
        {t("rules")}{" "}
        <select
          value={chosen}
          onChange={(e) => {
            const next = presets.find((p) => p.name === e.currentTarget.value);
            setChosen(e.currentTarget.value);
            setEdited({});
            setError(null);
            // The seats the new rules allow: extra seats go, missing ones are added.
            const [low, high] = seatRange(next);
            const kept = seats.slice(0, high);
            while (kept.length < low) kept.push(DEFAULT_BOT);
            setSeats(kept);
          }}
        >
          {presets.map((p) => (
            <option key={p.name} value={p.name}>
              {presetName(p.name)}
            </option>
          ))}
        </select>
      </label>
      {preset !== undefined && (
        <p class="muted preset-description">
          {presetDescription(preset)} {t("preset_players", { min: minSeats, max: maxSeats })}.
        </p>
      )}
      {preset !== undefined && (
        <p class="rule-tags">
          <RuleTags options={options} />
        </p>
      )}
      {preset !== undefined && <HowToPlay options={options} players={seats.length} />}
      <fieldset>
        <legend>{t("seats")}</legend>
        <ol class="seats">
          {seats.map((choice, index) =>
            choice === "me" ? (
              <li key={index}>
                {props.name.trim() !== "" ? t("you_named", { name: props.name.trim() }) : t("you_plain")}
              </li>
            ) : (
              <li key={index}>
                <select
                  aria-label={t("seat_n", { n: index + 1 })}
                  value={choice}
                  onChange={(e) => setSeat(index, e.currentTarget.value as SeatChoice)}
                >
                  {seatChoices().map((c) => (
                    <option key={c.value} value={c.value}>
                      {c.label}
                    </option>
                  ))}
                </select>
                {seats.length > minSeats && (
                  <button
                    type="button"
                    class="link"
                    aria-label={t("remove_seat", { n: index + 1 })}
                    onClick={() => setSeats(seats.filter((_, i) => i !== index))}
                  >
                    ✕
                  </button>
                )}
              </li>
            ),
          )}
        </ol>
        <button
          type="button"
          disabled={seats.length >= maxSeats}
          aria-describedby={seats.length >= maxSeats ? "seats-full" : undefined}
          onClick={() => seats.length < maxSeats && setSeats([...seats, DEFAULT_BOT])}
        >
          {t("add_seat")}
        </button>
        {seats.length >= maxSeats && (
          <p class="reason" id="seats-full">
            {t("seats_full", { max: maxSeats })}
          </p>
        )}
        <FieldErrors errors={errorsOf("players")} label={t("field_players")} />
        <FieldErrors errors={errorsOf("seats")} label={t("field_seats")} />
      </fieldset>
      <details open={fields.some((f) => f.field in options) ? true : undefined}>
        <summary>{t("options")}</summary>
        <div class="options">
          {Object.entries(options)
            .filter(([key]) => editable(presetOptions[key]))
            .map(([key, value]) => (
              <OptionInput
                key={key}
                name={key}
                value={value}
                presetValue={presetOptions[key]}
                errors={errorsOf(key)}
                onChange={(v) => setEdited({ ...edited, [key]: v })}
              />
            ))}
        </div>
      </details>
      <Alert text={error?.text ?? null} />
      <FieldErrors errors={otherErrors} />
      <button type="submit" class="primary" disabled={busy || preset === undefined}>
        {t("create_game")}
      </button>
    </form>
  );
}

/** A field's messages from the service, each on its own line (never the raw `errors`). */
function FieldErrors(props: { errors: FieldError[]; label?: string }) {
  if (props.errors.length === 0) return null;
  return (
    <ul class="field-errors">
      {props.errors.map((error, i) => (
        <li key={i} class="field-error">
          {t("field_error", { field: props.label ?? error.path, message: error.message })}
        </li>
      ))}
    </ul>
  );
}

function OptionInput(props: {
  name: string;
  value: unknown;
  presetValue: unknown;
  errors?: FieldError[];
  onChange: (value: unknown) => void;
}) {
  return (
    <>
      <OptionField {...props} />
      <FieldErrors errors={props.errors ?? []} label={optionLabel(props.name)} />
    </>
  );
}

function OptionField(props: {
  name: string;
  value: unknown;
  presetValue: unknown;
  onChange: (value: unknown) => void;
}) {
  const { name, value, presetValue } = props;
  const schema: OptionSchema = contract.options[name] ?? {};
  const label = optionLabel(name);
  // The contract describes each option in English only.
  const title = language() === "en" ? schema.description : undefined;
  if (typeof presetValue === "boolean") {
    return (
      <label class="option" title={title}>
        <input
          type="checkbox"
          aria-label={label}
          checked={value === true}
          onChange={(e) => props.onChange(e.currentTarget.checked)}
        />{" "}
        {label}
      </label>
    );
  }
  const choices = (schema.enum ?? []).filter((v): v is string => typeof v === "string");
  if (choices.length > 0 && (typeof presetValue === "string" || presetValue === null)) {
    return (
      <label class="option" title={title}>
        {label}{" "}
        <select aria-label={label} value={String(value ?? "")} onChange={(e) => props.onChange(e.currentTarget.value)}>
          {choices.map((choice) => (
            <option key={choice} value={choice}>
              {optionValue(choice)}
            </option>
          ))}
        </select>
      </label>
    );
  }
  if (typeof presetValue === "string") {
    return (
      <label class="option" title={title}>
        {label}{" "}
        <input
          type="text"
          aria-label={label}
          value={String(value ?? "")}
          onInput={(e) => props.onChange(e.currentTarget.value)}
        />
      </label>
    );
  }
  return (
    <label class="option" title={title}>
      {label}{" "}
      <input
        type="number"
        aria-label={label}
        value={typeof value === "number" ? value : ""}
        min={schema.minimum}
        max={schema.maximum}
        placeholder={presetValue === null ? t("option_auto") : ""}
        onInput={(e) => {
          const text = e.currentTarget.value;
          props.onChange(text === "" ? presetValue : Number(text));
        }}
      />
    </label>
  );
}

function OpenGames(props: { presets: Preset[] }) {
  const [games, setGames] = useState<LobbyGame[]>([]);
  const [filter, setFilter] = useState("");
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [queued, setQueued] = useState<Record<string, number>>({});

  const load = async (from: string | null, preset = filter): Promise<void> => {
    const query = {
      status: "waiting" as const,
      limit: 10,
      ...(from === null ? {} : { cursor: from }),
      ...(preset === "" ? {} : { preset }),
    };
    const { data, error: problem } = await api.GET("/games", { params: { query } });
    setLoaded(true);
    if (data === undefined) {
      setError(refusalText(problem, t("open_games_failed")));
      return;
    }
    setError(null);
    setGames((before) => (from === null ? data.games : [...before, ...data.games]));
    setCursor(data.next_cursor ?? null);
    if (from === null) setQueued(data.queued);
  };

  useEffect(() => {
    void load(null);
  }, []);

  return (
    <section class="panel" aria-label={t("open_games")}>
      <h2>
        {t("open_games")}{" "}
        <button type="button" class="link" onClick={() => void load(null)}>
          {t("refresh")}
        </button>
      </h2>
      <p class="filter">
        <select
          aria-label={t("show_games_of")}
          value={filter}
          onChange={(e) => {
            setFilter(e.currentTarget.value);
            void load(null, e.currentTarget.value);
          }}
        >
          <option value="">{t("any_rules")}</option>
          {props.presets.map((p) => (
            <option key={p.name} value={p.name}>
              {presetName(p.name)}
            </option>
          ))}
        </select>
      </p>
      <Alert text={error} />
      {loaded && games.length === 0 && <p class="muted">{t("no_game_waiting")}</p>}
      {demandLines(queued).length > 0 && (
        <ul class="demand" aria-label={t("quick_play")}>
          {demandLines(queued).map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      <ul class="games">
        {games.map((game) => (
          <li key={game.id}>
            <span>
              <strong>{presetName(game.preset)}</strong>{" "}
              {game.seats
                .map((seat) =>
                  seat.open
                    ? t("open_seat_lower")
                    : seat.kind === "bot"
                      ? t("tag_bot")
                      : (seat.name ?? seat.kind),
                )
                .join(t("list_sep"))}
            </span>
            <a class="button" href={`#/games/${game.id}`}>
              {t("join")}
            </a>
          </li>
        ))}
      </ul>
      {cursor !== null && (
        <button type="button" onClick={() => void load(cursor)}>
          {t("more")}
        </button>
      )}
    </section>
  );
}

/** A saved game in words: its preset, its players, its state. */
export function gameSummary(view: GameView): string {
  const players = view.seats.map((seat) => {
    if (seat.seat === view.you) return t("you_plain");
    if (seat.kind === "bot") {
      const bot = botOfSeat(seat.name);
      return bot === null ? t("tag_bot") : botWords(bot, "seat_bot");
    }
    return seat.name ?? t("open_seat_lower");
  });
  const state =
    view.status === "active" && view.round !== null
      ? `${t("status_active")}, ${t("round_n", { n: view.round.number })}`
      : t(`status_${view.status}`);
  return `${joinNames(players)} · ${state}`;
}

const ACTIVITY_UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", Number.POSITIVE_INFINITY],
];

/** How long ago `at` was, seen from `now` (both ISO times, the server's clock), in the
 * page's language by `Intl.RelativeTimeFormat` ("5 minutes ago", "fyrir 5 mínútum"). */
export function timeAgo(at: string, now: string, lang: string = language()): string | null {
  const then = Date.parse(at);
  const current = Date.parse(now);
  if (Number.isNaN(then) || Number.isNaN(current)) return null;
  let amount = Math.max(0, (current - then) / 1000);
  const format = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });
  for (const [unit, size] of ACTIVITY_UNITS) {
    if (amount < size) return format.format(-Math.floor(amount), unit);
    amount /= size;
  }
  return null;
}

interface MyGame {
  id: string;
  view: GameView | null;
  /** The time of the game's last event, when known. */
  lastAt?: string;
}

/** The games this browser holds a seat in, each with its preset, players, state and last
 * move; a game the service no longer has (404) is forgotten. */
function MyGames() {
  const [games, setGames] = useState<MyGame[]>(() => savedGames().map((id) => ({ id, view: null })));
  useEffect(() => {
    const update = (id: string, change: Partial<MyGame>): void =>
      setGames((before) => before.map((game) => (game.id === id ? { ...game, ...change } : game)));
    for (const id of savedGames()) {
      const token = loadSeat(id)?.token ?? null;
      void api
        .GET("/games/{game_id}", { params: { path: { game_id: id } }, headers: bearer(token) })
        .then(async ({ data, response }) => {
          if (response.status === 404) {
            forgetSeat(id);
            setGames((before) => before.filter((game) => game.id !== id));
            return;
          }
          if (data === undefined) return;
          update(id, { view: data });
          // The last event's time: the game's last activity.
          const after = Math.max(0, data.last_event - 1);
          const events = await api.GET("/games/{game_id}/events", {
            params: { path: { game_id: id }, query: { after } },
            headers: bearer(token),
          });
          const last = events.data?.events.at(-1)?.at;
          if (typeof last === "string") update(id, { lastAt: last });
        });
    }
  }, []);
  if (games.length === 0) return null;
  return (
    <section class="panel" aria-label={t("your_games")}>
      <h2>{t("your_games")}</h2>
      <ul class="games my-games">
        {games.map(({ id, view, lastAt }) => {
          const ago = view !== null && lastAt !== undefined && view.now !== undefined ? timeAgo(lastAt, view.now) : null;
          return (
          <li key={id} data-game={id}>
            <span>
              <a href={`#/games/${id}`}>{view === null ? id : presetName(view.preset)}</a>
              {view !== null && <span class="muted"> {gameSummary(view)}</span>}
              {ago !== null && <span class="muted last-activity"> · {t("last_activity", { when: ago })}</span>}
              {view?.status === "finished" && (
                <>
                  {" · "}
                  <a href={`#${replayPath(id)}`} class="review-game">
                    {t("review_game")}
                  </a>
                </>
              )}
            </span>
          </li>
          );
        })}
      </ul>
    </section>
  );
}

export function Lobby() {
  const [name, setName] = useState(savedName());
  const [presets, setPresets] = useState<Preset[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api.GET("/presets").then(({ data, error: problem }) => {
      if (data !== undefined) setPresets(data.presets);
      else setError(refusalText(problem, t("presets_failed")));
    });
  }, []);
  return (
    <main class="lobby">
      <label class="name">
        {t("your_name")}{" "}
        <input
          value={name}
          maxLength={contract.nameMaxLength}
          autoComplete="nickname"
          onInput={(e) => {
            setName(e.currentTarget.value);
            saveName(e.currentTarget.value);
          }}
        />
      </label>
      <Alert text={error} />
      <div class="columns">
        <CreateForm name={name} presets={presets} />
        <div>
          <QuickPlay name={name} presets={presets} range={seatRange} />
          <OpenGames presets={presets} />
          <MyGames />
        </div>
      </div>
    </main>
  );
}
