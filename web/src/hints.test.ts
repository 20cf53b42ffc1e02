import { afterEach, describe, expect, it } from "vitest";
import { type Hint, hintCards, hintText } from "./hints";
import { setLanguage } from "./i18n";

afterEach(() => setLanguage("en"));

const discard: Hint = {
  version: 2,
  move: { type: "discard", card: "SQ" },
  reason: {
    code: "discard",
    detail: "Discard SQ: …",
    card: "SQ",
    builds: [
      ["C7", "D7", "S7"],
      ["H2", "H3", "H4"],
    ],
    deadwood: 9,
    outs: 0,
    feeds_table: false,
    feeds_next: true,
  },
};

describe("hints", () => {
  it("select the cards of the hand the move plays, none for a draw", () => {
    expect(hintCards(discard.move)).toEqual(["SQ"]);
    expect(hintCards({ type: "meld", cards: ["H2", "H3", "H4"] })).toEqual(["H2", "H3", "H4"]);
    expect(hintCards({ type: "layoff", meld: 1, cards: ["H5"] })).toEqual(["H5"]);
    expect(hintCards({ type: "draw", source: "stock" })).toEqual([]);
  });

  it("say what to do, what the hand keeps and what a discard gives away, from the figures", () => {
    const text = hintText(discard);
    expect(text).toContain("Discard Q♠.");
    expect(text).toContain("Your hand keeps 7♣ 7♦ 7♠, 2♥ 3♥ 4♥.");
    expect(text).toContain("9 points left in no meld.");
    expect(text).toContain("the next player collects cards like it");
    expect(text).not.toContain("little");
    const draw: Hint = {
      version: 1,
      move: { type: "draw", source: "stock" },
      reason: { code: "draw_stock", detail: "…", card: "CA" },
    };
    expect(hintText(draw)).toBe("Draw from the stock: A♣ on the discard pile would not help you.");
  });

  it("are worded in the reader's language", () => {
    setLanguage("is");
    expect(hintText(discard)).toContain("Kastaðu");
    setLanguage("el");
    expect(hintText(discard)).toContain("Πέτα");
  });
});
