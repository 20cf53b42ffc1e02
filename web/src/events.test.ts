import { describe, expect, it } from "vitest";
import { describeEvent } from "./events";

const names = ["Ann", "Bob"];
const name = (seat: number): string => (seat === 0 ? "You" : (names[seat] ?? "?"));

describe("events in words", () => {
  it("says who started a rematch", () => {
    expect(describeEvent({ type: "rematch_offered", seat: 1, next_game: "g2" }, name, 0)).toBe(
      "Bob started a rematch.",
    );
    expect(describeEvent({ type: "rematch_offered", seat: 0, next_game: "g2" }, name, 0)).toBe(
      "You started a rematch.",
    );
  });

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

  it("tells of the re-engage decision between rounds", () => {
    expect(describeEvent({ type: "seat_eliminated", seat: 0, score: 104 }, name, 0)).toBe(
      "You are eliminated with 104 points.",
    );
    // In the reader's locale: "1,250" in English, "1.250" in German.
    expect(describeEvent({ type: "reengage_offered", seats: [0, 1], score: 1250 }, name, 0)).toBe(
      `You and Bob may re-engage with ${new Intl.NumberFormat().format(1250)} points.`,
    );
    expect(describeEvent({ type: "reengage_offered", seats: [1], score: 1 }, name, 0)).toBe(
      "Bob may re-engage with 1 point.",
    );
    expect(describeEvent({ type: "reengaged", seat: 1, score: 62 }, name, 0)).toBe(
      "Bob re-engaged with 62 points.",
    );
    expect(describeEvent({ type: "reengaged", seat: 0, score: 62, chips: 5 }, name, 0)).toBe(
      "You re-engaged with 62 points, putting 5 chips in the pot.",
    );
    expect(describeEvent({ type: "reengage_declined", seat: 1 }, name, 0)).toBe(
      "Bob declined to re-engage and is out.",
    );
    expect(describeEvent({ type: "reengage_declined", seat: 0 }, name, 0)).toBe(
      "You declined to re-engage and are out.",
    );
    expect(describeEvent({ type: "seat_rejoined", seat: 1, score: 62 }, name, 0)).toBe(
      "Bob rejoined with 62 points.",
    );
  });

  it("tells of the pot and who takes it", () => {
    expect(describeEvent({ type: "pot_opened", stake: 10, pot: 30 }, name)).toBe(
      "Every player put 10 chips in the pot: 30 chips to win.",
    );
    expect(describeEvent({ type: "game_ended", winners: [1], payouts: [0, 35] }, name, 0)).toBe(
      "The game ended: Bob won 35 chips.",
    );
    expect(describeEvent({ type: "game_ended", winners: [0, 1], payouts: [1500, 1500] }, name, 0)).toBe(
      `The game ended: You and Bob won ${new Intl.NumberFormat().format(1500)} chips each.`,
    );
    expect(describeEvent({ type: "game_ended", winners: [0, 1], payouts: [8, 7] }, name, 0)).toBe(
      "The game ended: You won 8 chips and Bob won 7 chips.",
    );
    // No chips to share (or no stake): the winners only.
    expect(describeEvent({ type: "game_ended", winners: [1], payouts: [0, 0] }, name, 0)).toBe(
      "The game ended: Bob won.",
    );
    expect(describeEvent({ type: "game_ended", winners: [1], payouts: null }, name, 0)).toBe(
      "The game ended: Bob won.",
    );
  });

  it("still says something about an event type it does not know", () => {
    expect(describeEvent({ type: "seat_rested", seat: 1 }, name)).toBe("Bob: seat rested.");
    expect(describeEvent({ type: "clock_paused" }, name)).toBe("Clock paused.");
  });
});
