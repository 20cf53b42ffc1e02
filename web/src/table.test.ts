import { describe, expect, it } from "vitest";
import type { GameView } from "./api/client";
import {
  againSeats,
  awaitsRematch,
  drawnIndices,
  indicesOf,
  isOpenSeat,
  newCards,
  reengageLabel,
  reengageWaiting,
  secondsLeft,
  turnText,
} from "./table";

function view(overrides: Partial<GameView>): GameView {
  return {
    id: "g",
    version: 3,
    status: "active",
    preset: "express",
    options: {},
    you: 0,
    hand: [],
    seats: [
      { seat: 0, name: "Ann", kind: "human", hand_size: 7, score: 0 },
      { seat: 1, name: "random bot", kind: "bot", hand_size: 7, score: 0 },
      { seat: 2, name: "Bob", kind: "human", hand_size: 7, score: 0 },
    ],
    round: null,
    rounds: [],
    winners: null,
    last_event: 4,
    ...overrides,
  } as GameView;
}

describe("table helpers", () => {
  it("waits for a rematch at a finished table with other people until one is started", () => {
    expect(awaitsRematch(view({ status: "finished" }))).toBe(true);
    expect(awaitsRematch(view({ status: "finished", next_game: "g2" }))).toBe(false);
    expect(awaitsRematch(view({}))).toBe(false);
    expect(awaitsRematch(view({ status: "finished", you: undefined }))).toBe(false);
    const bots = view({ status: "finished" });
    bots.seats = bots.seats.filter((seat) => seat.seat !== 2);
    expect(awaitsRematch(bots)).toBe(false);
  });

  it("plays again with me, the same bots, and open seats for the other people", () => {
    expect(againSeats(view({}), "Ann", () => "s1")).toEqual([{ name: "Ann", client_seed: "s1" }, { bot: "random" }, { name: null }]);
    expect(againSeats(view({}), "Ann")[0]?.client_seed).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it("finds each selected card once, duplicates counted", () => {
    expect(indicesOf(["H5", "S7", "H5", "D2"], ["H5", "H5"])).toEqual([0, 2]);
    expect(indicesOf(["H5"], ["H5", "H5"])).toEqual([0]);
  });

  it("tells an open seat from a taken one", () => {
    expect(isOpenSeat({ seat: 1, name: null, kind: "human", hand_size: 0, score: 0 })).toBe(true);
    expect(isOpenSeat({ seat: 1, name: "Bo", kind: "human", hand_size: 0, score: 0 })).toBe(false);
  });

  it("says whose turn it is and what to do", () => {
    const round = {
      number: 1, dealer: 1, turn: 0, phase: "draw", stock_size: 20, refills: 0,
      discard_pile: ["H2"], taken_discard: null, melds: [],
    } as unknown as GameView["round"];
    expect(turnText(view({ round }), 0)).toBe("Your turn: draw from the stock or the discard pile.");
    expect(turnText(view({ round: { ...round, phase: "play" } as GameView["round"] }), 0)).toContain("discard a card");
    expect(turnText(view({ round: { ...round, turn: 2 } as GameView["round"] }), 0)).toBe("Waiting for Bob…");
    expect(turnText(view({ status: "finished" }), 0)).toBe("The game is over.");
  });
});

describe("the re-engage offer", () => {
  const offer = { seats: [2], score: 1250, chips: null, deadline: null };

  it("says on its button the total it comes back with, and with a stake what it costs", () => {
    expect(reengageLabel(offer, "en-US")).toBe("Re-engage with 1,250 points");
    expect(reengageLabel({ ...offer, score: 1 }, "en-US")).toBe("Re-engage with 1 point");
    expect(reengageLabel({ ...offer, score: 1250, chips: 5 }, "de-DE")).toBe("Re-engage with 1.250 points for 5 chips");
    expect(reengageLabel({ ...offer, score: 40, chips: 1 }, "en-US")).toBe("Re-engage with 40 points for 1 chip");
  });

  it("tells the other players who is deciding", () => {
    expect(reengageWaiting(view({ reengage: offer }), 0)).toBe("Waiting for Bob to decide whether to re-engage…");
    expect(reengageWaiting(view({ reengage: offer }), null)).toBe(
      "Waiting for Bob to decide whether to re-engage…",
    );
    expect(reengageWaiting(view({ reengage: offer }), 2)).toBeNull();
    expect(reengageWaiting(view({ reengage: { ...offer, seats: [0, 2] } }), 1)).toBe(
      "Waiting for Ann and Bob to decide whether to re-engage…",
    );
    expect(reengageWaiting(view({ reengage: null }), 0)).toBeNull();
    expect(turnText(view({ reengage: offer }), 0)).toBe("Waiting for the next deal.");
  });
});

describe("turn clock", () => {
  it("counts down from the deadline on the server's clock", () => {
    const loadedAt = Date.parse("2026-12-01T10:00:00Z"); // this browser's clock, 5 s behind
    const now = "2026-12-01T10:00:05Z";
    const deadline = "2026-12-01T10:00:35Z";
    expect(secondsLeft(deadline, now, loadedAt, loadedAt)).toBe(30);
    expect(secondsLeft(deadline, now, loadedAt, loadedAt + 10_500)).toBe(20);
    expect(secondsLeft(deadline, now, loadedAt, loadedAt + 60_000)).toBe(0);
  });
});

import { setLanguage } from "./i18n";
import { seatName } from "./table";

describe("seats in words", () => {
  it("names the reader, a bot by its strategy, and the others by name, in the page's language", () => {
    expect(seatName(view({}), 0, 0)).toBe("You");
    expect(seatName(view({}), 1, 0)).toBe("Random bot");
    expect(seatName(view({}), 2, 0)).toBe("Bob");
    setLanguage("sv");
    expect(seatName(view({}), 1, 0)).toBe("Dator (slumpvis)");
    expect(seatName(view({}), 0, 0)).toBe("Du");
    setLanguage("en");
  });
});

describe("the card just drawn", () => {
  it("is the card the hand did not hold, duplicates counted", () => {
    expect(newCards(["H7", "SK"], ["H7", "SK", "D2"])).toEqual(["D2"]);
    expect(newCards(["H7", "SK"], ["H7", "SK", "H7"])).toEqual(["H7"]);
    expect(newCards(["H7"], ["H7"])).toEqual([]);
  });

  it("is marked at its last copy in the hand", () => {
    expect(drawnIndices(["H7", "SK", "H7"], ["H7"])).toEqual([2]);
    expect(drawnIndices(["H7", "SK"], ["D2"])).toEqual([]);
  });
});
