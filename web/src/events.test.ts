import { describe, expect, it } from "vitest";
import { describeEvent } from "./events";

const names = ["Ann", "Bob"];
const name = (seat: number): string => (seat === 0 ? "You" : (names[seat] ?? "?"));

describe("events in words", () => {
  it("shows a discard draw's card and hides what nobody may see", () => {
    expect(describeEvent({ type: "drew", seat: 1, source: "discard", card: "H7" }, name, 0)).toBe(
      "Bob drew from the discard pile: 7♥.",
    );
    expect(describeEvent({ type: "drew", seat: 1, source: "stock" }, name, 0)).toBe(
      "Bob drew from the stock.",
    );
    expect(describeEvent({ type: "drew", seat: 0, source: "stock", card: "SQ" }, name, 0)).toBe(
      "You drew from the stock: Q♠.",
    );
  });

  it("describes melds, lay-offs, discards and the end", () => {
    expect(
      describeEvent({ type: "melded", seat: 1, meld: { id: 1, cards: ["H2", "H3", "H4"] } }, name),
    ).toBe("Bob melded 2♥ 3♥ 4♥.");
    expect(
      describeEvent(
        { type: "melded", seat: 1, meld: { id: 2, cards: ["SJ", "JK", "SK"], jokers: { "1": "SQ" } } },
        name,
      ),
    ).toBe("Bob melded J♠ Joker(Q♠) K♠.");
    expect(describeEvent({ type: "laid_off", seat: 0, meld: 1, cards: ["H5"] }, name, 0)).toBe(
      "You laid off 5♥ on meld 1.",
    );
    expect(describeEvent({ type: "discarded", seat: 1, card: "C10" }, name)).toBe("Bob discarded 10♣.");
    expect(describeEvent({ type: "went_out", seat: 1, rummy: true }, name)).toBe("Bob went out with rummy!");
    expect(describeEvent({ type: "round_ended", number: 1, winner: 1 }, name)).toBe(
      "Round 1 ended: Bob won it.",
    );
    expect(describeEvent({ type: "game_ended", winners: [0, 1] }, name)).toBe(
      "The game ended: You and Bob won.",
    );
  });

  it("says who left and who plays the seat now", () => {
    expect(describeEvent({ type: "seat_left", seat: 1, kind: "bot", bot: "greedy" }, name)).toBe(
      "Bob left; the greedy bot plays the seat.",
    );
    expect(describeEvent({ type: "seat_left", seat: 1, kind: "human" }, name)).toBe(
      "Bob left; the seat is open again.",
    );
  });

  it("says who is away and back", () => {
    expect(describeEvent({ type: "seat_away", seat: 1 }, name)).toBe("Bob is away; the server plays the seat.");
    expect(describeEvent({ type: "seat_back", seat: 0 }, name, 0)).toBe("You are back.");
  });

  it("still says something about an event type it does not know", () => {
    expect(describeEvent({ type: "seat_rested", seat: 1 }, name)).toBe("Bob: seat rested.");
    expect(describeEvent({ type: "clock_paused" }, name)).toBe("Clock paused.");
  });
});
