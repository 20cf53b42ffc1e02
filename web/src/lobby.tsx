/** The lobby: create a game (preset, seats, options), open games to join, my games. */

import { useEffect, useState } from "preact/hooks";
import {
  type CreateGame,
  type LobbyGame,
  type Preset,
  type SeatSpec,
  api,
  problemText,
} from "./api/client";
import { Alert } from "./components";
import { type OptionSchema, contract } from "./contract";
import { navigate } from "./router";
import { saveName, saveSeat, savedGames, savedName } from "./storage";

/** What a seat of the create form holds: me, an open seat, or a bot strategy's name. */
export type SeatChoice = "me" | "open" | string;

/** The choices for a seat other than mine: each bot of the contract, or open. */
const SEAT_CHOICES: { value: SeatChoice; label: string }[] = [
  ...contract.bots.map((bot) => ({ value: bot, label: `Bot (${bot})` })),
  { value: "open", label: "Open for a friend" },
];
const DEFAULT_BOT = contract.bots.includes("greedy") ? "greedy" : (contract.bots[0] ?? "open");

/** The seats of a create request for the form's choices. */
export function seatSpecs(choices: readonly SeatChoice[], name: string): SeatSpec[] {
  return choices.map((choice): SeatSpec => {
    switch (choice) {
      case "me":
        return { name };
      case "open":
        return { name: null };
      default:
        return { bot: choice as NonNullable<SeatSpec["bot"]> };
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
export async function createAndOpen(request: CreateGame): Promise<string | null> {
  const { data, error } = await api.POST("/games", { body: request });
  if (data === undefined) {
    const problem = error as { errors?: Record<string, unknown> } | undefined;
    const fields = problem?.errors ? ` (${JSON.stringify(problem.errors)})` : "";
    return problemText(error) + fields;
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
  const [presetName, setPresetName] = useState("express");
  const [seats, setSeats] = useState<SeatChoice[]>(["me", DEFAULT_BOT]);
  const [edited, setEdited] = useState<Record<string, unknown>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const preset = presets.find((p) => p.name === presetName);
  const presetOptions = (preset?.options ?? {}) as Record<string, unknown>;
  const options = { ...presetOptions, ...edited };

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const name = props.name.trim();
    if (name === "") {
      setError("Enter your name first.");
      return;
    }
    setBusy(true);
    setError(null);
    const request: CreateGame = {
      preset: presetName as CreateGame["preset"],
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
    <form class="panel create" onSubmit={(e) => void submit(e)} aria-label="Create a game">
      <h2>New game</h2>
      <label>
        Rules{" "}
        <select
          value={presetName}
          onChange={(e) => {
            setPresetName(e.currentTarget.value);
            setEdited({});
          }}
        >
          {presets.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      {preset !== undefined && <p class="muted">{preset.description}</p>}
      <fieldset>
        <legend>Seats</legend>
        <ol class="seats">
          {seats.map((choice, index) =>
            choice === "me" ? (
              <li key={index}>You{props.name.trim() !== "" ? ` (${props.name.trim()})` : ""}</li>
            ) : (
              <li key={index}>
                <select
                  aria-label={`Seat ${index + 1}`}
                  value={choice}
                  onChange={(e) => setSeat(index, e.currentTarget.value as SeatChoice)}
                >
                  {SEAT_CHOICES.map((c) => (
                    <option key={c.value} value={c.value}>
                      {c.label}
                    </option>
                  ))}
                </select>
                {seats.length > 2 && (
                  <button
                    type="button"
                    class="link"
                    aria-label={`Remove seat ${index + 1}`}
                    onClick={() => setSeats(seats.filter((_, i) => i !== index))}
                  >
                    ✕
                  </button>
                )}
              </li>
            ),
          )}
        </ol>
        {seats.length < 6 && (
          <button type="button" onClick={() => setSeats([...seats, DEFAULT_BOT])}>
            Add a seat
          </button>
        )}
      </fieldset>
      <details>
        <summary>Options</summary>
        <div class="options">
          {Object.entries(options)
            .filter(([key]) => editable(presetOptions[key]))
            .map(([key, value]) => (
              <OptionInput
                key={key}
                name={key}
                value={value}
                presetValue={presetOptions[key]}
                onChange={(v) => setEdited({ ...edited, [key]: v })}
              />
            ))}
        </div>
      </details>
      <Alert text={error} />
      <button type="submit" class="primary" disabled={busy || preset === undefined}>
        Create game
      </button>
    </form>
  );
}

function OptionInput(props: {
  name: string;
  value: unknown;
  presetValue: unknown;
  onChange: (value: unknown) => void;
}) {
  const { name, value, presetValue } = props;
  const schema: OptionSchema = contract.options[name] ?? {};
  const label = name.replace(/_/g, " ");
  const title = schema.description;
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
              {choice.replace(/_/g, " ")}
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
        placeholder={presetValue === null ? "auto" : ""}
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
      setError(problemText(problem, "The open games could not be loaded."));
      return;
    }
    setError(null);
    setGames((before) => (from === null ? data.games : [...before, ...data.games]));
    setCursor(data.next_cursor ?? null);
  };

  useEffect(() => {
    void load(null);
  }, []);

  return (
    <section class="panel" aria-label="Open games">
      <h2>
        Open games{" "}
        <button type="button" class="link" onClick={() => void load(null)}>
          Refresh
        </button>
      </h2>
      <p class="filter">
        <select
          aria-label="Show games of"
          value={filter}
          onChange={(e) => {
            setFilter(e.currentTarget.value);
            void load(null, e.currentTarget.value);
          }}
        >
          <option value="">Any rules</option>
          {props.presets.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name}
            </option>
          ))}
        </select>
      </p>
      <Alert text={error} />
      {loaded && games.length === 0 && <p class="muted">No game is waiting for players.</p>}
      <ul class="games">
        {games.map((game) => (
          <li key={game.id}>
            <span>
              <strong>{game.preset}</strong>{" "}
              {game.seats
                .map((seat) => (seat.open ? "open seat" : (seat.name ?? seat.kind)))
                .join(", ")}
            </span>
            <a class="button" href={`#/games/${game.id}`}>
              Join
            </a>
          </li>
        ))}
      </ul>
      {cursor !== null && (
        <button type="button" onClick={() => void load(cursor)}>
          More
        </button>
      )}
    </section>
  );
}

function MyGames() {
  const ids = savedGames();
  if (ids.length === 0) return null;
  return (
    <section class="panel" aria-label="Your games">
      <h2>Your games</h2>
      <ul class="games">
        {ids.map((id) => (
          <li key={id}>
            <a href={`#/games/${id}`}>{id}</a>
          </li>
        ))}
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
      else setError(problemText(problem, "The presets could not be loaded."));
    });
  }, []);
  return (
    <main class="lobby">
      <label class="name">
        Your name{" "}
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
          <OpenGames presets={presets} />
          <MyGames />
        </div>
      </div>
    </main>
  );
}
