import { describe, expect, it } from "vitest";
import { arrange, cardLabel, cardText, isRed, moveCard, rankValue, sameCards, shownThenSaid, sortHand } from "./cards";

describe("cards", () => {
  it("keeps the reader's arrangement, the cards drawn since at the end", () => {
    expect(arrange(["H7", "SK", "D2", "H7"], ["H7", "D2", "H7", "SK"])).toEqual(["H7", "D2", "H7", "SK"]);
    expect(arrange(["H7", "SK", "C4"], ["SK", "D2", "H7"])).toEqual(["SK", "H7", "C4"]); // D2 melded, C4 drawn
    expect(arrange(["H7"], [])).toEqual(["H7"]);
  });

  it("moves one card to another place", () => {
    expect(moveCard(["A", "B", "C", "D"], 0, 2)).toEqual(["B", "C", "A", "D"]);
    expect(moveCard(["A", "B", "C", "D"], 3, 0)).toEqual(["D", "A", "B", "C"]);
    expect(moveCard(["A", "B"], 1, 9)).toEqual(["A", "B"]);
  });

  it("names a control by the text it shows, then in words", () => {
    expect(shownThenSaid("K♥", "king of hearts")).toBe("K♥ (king of hearts)");
    expect(shownThenSaid("Draw", "Draw")).toBe("Draw");
  });

  it("names cards in words and short text", () => {
    expect(cardLabel("H7")).toBe("7 of hearts");
    expect(cardLabel("SQ")).toBe("queen of spades");
    expect(cardLabel("D10")).toBe("10 of diamonds");
    expect(cardLabel("CA")).toBe("ace of clubs");
    expect(cardLabel("JK")).toBe("joker");
    expect(cardText("H7")).toBe("7♥");
    expect(cardText("C10")).toBe("10♣");
    expect(cardText("JK")).toBe("Joker");
  });

  it("colours hearts and diamonds red", () => {
    expect(isRed("H2")).toBe(true);
    expect(isRed("DK")).toBe(true);
    expect(isRed("S2")).toBe(false);
    expect(isRed("CK")).toBe(false);
  });

  it("ranks aces low and faces above ten", () => {
    expect(["CA", "C10", "CJ", "CQ", "CK", "JK"].map(rankValue)).toEqual([1, 10, 11, 12, 13, 0]);
  });

  it("sorts by rank then suit, or by suit then rank, jokers last", () => {
    const hand = ["HK", "JK", "S2", "H2", "C10", "SA"];
    expect(sortHand(hand, "rank")).toEqual(["SA", "S2", "H2", "C10", "HK", "JK"]);
    expect(sortHand(hand, "suit")).toEqual(["SA", "S2", "H2", "HK", "C10", "JK"]);
    expect(hand).toEqual(["HK", "JK", "S2", "H2", "C10", "SA"]);
  });

  it("compares card lists as multisets", () => {
    expect(sameCards(["H5", "H6", "H7"], ["H7", "H5", "H6"])).toBe(true);
    expect(sameCards(["H5", "H5"], ["H5", "H6"])).toBe(false);
    expect(sameCards(["H5"], ["H5", "H5"])).toBe(false);
  });
});
