import { describe, expect, it } from "vitest";
import spec from "../../openapi/openapi.json";
import { contract } from "./contract";
import { botOfSeat, botWords, overrides, seatSpecs } from "./lobby";

describe("create form", () => {
  it("takes the name limit and the bots from the contract", () => {
    const join = spec.components.schemas.Join as { properties: { name: { maxLength: number } } };
    expect(contract.nameMaxLength).toBe(join.properties.name.maxLength);
    expect(contract.bots).toContain("greedy");
  });

  it("turns the seat choices into the create request's seats", () => {
    expect(seatSpecs(["me", "greedy", "open", "random"], "Ann", () => "my-seed")).toEqual([
      { name: "Ann", client_seed: "my-seed" },
      { bot: "greedy" },
      { name: null },
      { bot: "random" },
    ]);
  });

  it("sends a random client seed for my seat by default", () => {
    const [mine] = seatSpecs(["me", "greedy"], "Ann");
    const other = seatSpecs(["me"], "Ann")[0];
    expect(mine?.client_seed).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(other?.client_seed).not.toBe(mine?.client_seed);
  });

  it("offers the expert's levels by name and asks for them as a level", () => {
    expect(contract.levels).toEqual({ "1": "beginner", "2": "casual", "3": "club", "4": "strong", "5": "master" });
    expect(seatSpecs(["me", "expert:1", "expert"], "Ann")).toEqual([
      { name: "Ann", client_seed: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/) },
      { bot: "expert", level: 1 },
      { bot: "expert" },
    ]);
    expect(botOfSeat("expert3 bot")).toEqual({ bot: "expert", level: 3 });
    expect(botOfSeat("expert bot")).toEqual({ bot: "expert" });
    expect(botOfSeat("greedy bot")).toEqual({ bot: "greedy" });
    expect(botWords({ bot: "expert", level: 1 }, "seat_bot")).toBe("Bot (expert, level 1: beginner)");
    expect(botWords({ bot: "expert", level: 5 }, "bot_name")).toBe("expert bot, level 5: master");
  });

  it("sends only the options that differ from the preset", () => {
    expect(overrides({ target_score: 150, jokers: 0 }, { target_score: 150, jokers: 2 })).toEqual({
      jokers: 2,
    });
  });
});

import { fieldErrors, seatRange } from "./lobby";
import type { Preset } from "./api/client";

describe("the create form's limits and refusals", () => {
  it("binds the seats to the preset's players range", () => {
    expect(seatRange({ name: "express", description: "", options: { players: [2, 4] } } as unknown as Preset)).toEqual([2, 4]);
    expect(seatRange(undefined)).toEqual([2, 6]);
  });

  it("flattens a problem's errors into messages per field, never JSON", () => {
    expect(fieldErrors({ players: ["this rule set allows 2 to 4 players, not 5"] })).toEqual([
      { field: "players", path: "players", message: "this rule set allows 2 to 4 players, not 5" },
    ]);
    expect(fieldErrors({ seats: { "0": { name: ["1 to 32 characters"] } } })).toEqual([
      { field: "seats", path: "seats.0.name", message: "1 to 32 characters" },
    ]);
    expect(fieldErrors(undefined)).toEqual([]);
  });
});

import type { GameView } from "./api/client";
import { gameSummary } from "./lobby";

describe("your games", () => {
  it("says who plays and how far the game is", () => {
    const view = {
      id: "g", version: 1, status: "active", preset: "express", options: {}, you: 0,
      seats: [
        { seat: 0, name: "Ann", kind: "human", hand_size: 7, score: 0 },
        { seat: 1, name: "greedy bot", kind: "bot", hand_size: 7, score: 0 },
        { seat: 2, name: null, kind: "human", hand_size: 0, score: 0 },
      ],
      round: { number: 2 }, rounds: [], winners: null, last_event: 3,
    } as unknown as GameView;
    expect(gameSummary(view)).toBe("You, Bot (greedy) and open seat · being played, round 2");
    expect(gameSummary({ ...view, status: "finished", round: null } as GameView)).toBe(
      "You, Bot (greedy) and open seat · finished",
    );
  });
});

import { timeAgo } from "./lobby";

describe("your games' last move", () => {
  const now = "2026-12-04T21:30:00+00:00";
  it("says how long ago by the server's clock, in the largest whole unit", () => {
    expect(timeAgo("2026-12-04T21:29:58+00:00", now, "en")).toBe("2 seconds ago");
    expect(timeAgo("2026-12-04T21:25:00+00:00", now, "en")).toBe("5 minutes ago");
    expect(timeAgo("2026-12-04T18:10:00+00:00", now, "en")).toBe("3 hours ago");
    expect(timeAgo("2026-12-03T20:00:00+00:00", now, "en")).toBe("yesterday");
    expect(timeAgo("2026-12-01T20:00:00+00:00", now, "en")).toBe("3 days ago");
  });

  it("speaks the page's language, and never says a time to come", () => {
    expect(timeAgo("2026-12-04T21:25:00+00:00", now, "is")).toBe("fyrir 5 mínútum");
    expect(timeAgo("2026-12-04T21:25:00+00:00", now, "sv")).toBe("för 5 minuter sedan");
    expect(timeAgo("2026-12-04T21:25:00+00:00", now, "da")).toBe("for 5 minutter siden");
    expect(timeAgo("2026-12-04T21:25:00+00:00", now, "el")).toBe("πριν από 5 λεπτά");
    expect(timeAgo("2026-12-04T21:31:00+00:00", now, "en")).toBe("now"); // a clock a little ahead
    expect(timeAgo("not a time", now, "en")).toBeNull();
  });
});
