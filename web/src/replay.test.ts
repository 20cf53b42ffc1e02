import { describe, expect, it } from "vitest";
import { replaySteps } from "./replay";
import { parseRoute, replayPath } from "./router";

describe("the replay", () => {
  it("steps through the moves, each with its round", () => {
    const events = [
      { seq: 1, type: "game_created" },
      { seq: 2, type: "round_started", number: 1 },
      { seq: 3, type: "drew", seat: 0 },
      { seq: 4, type: "discarded", seat: 0 },
      { seq: 5, type: "went_out", seat: 0 },
      { seq: 6, type: "round_ended" },
      { seq: 7, type: "round_started", number: 2 },
      { seq: 8, type: "drew", seat: 1 },
    ];
    expect(replaySteps(events)).toEqual([
      { seq: 3, round: 1 },
      { seq: 4, round: 1 },
      { seq: 8, round: 2 },
    ]);
  });

  it("has a route of its own beside the game's", () => {
    expect(parseRoute(`#${replayPath("g1")}`)).toEqual({ page: "replay", gameId: "g1" });
    expect(parseRoute("#/games/g1")).toEqual({ page: "game", gameId: "g1" });
    expect(parseRoute("#/games/g1/other")).toEqual({ page: "lobby" });
  });
});
