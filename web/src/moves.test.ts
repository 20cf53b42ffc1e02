import { describe, expect, it } from "vitest";
import type { LegalMove } from "./api/client";
import { offer, rankSuggestions } from "./moves";

const legal: LegalMove[] = [
  { type: "draw", source: "stock" },
  { type: "meld", cards: ["H5", "JK", "H7"] },
  { type: "meld", cards: ["S9", "D9", "C9"] },
  { type: "layoff", meld: 2, cards: ["H8"] },
  { type: "layoff", meld: 3, cards: ["H8", "H9"] },
  { type: "swap_joker", meld: 4, card: "D4" },
  { type: "discard", card: "H8" },
  { type: "discard", card: "D4" },
];

describe("offer: buttons enabled from legal moves only", () => {
  it("enables the meld of exactly the selected cards, in the service's order", () => {
    expect(offer(legal, ["H7", "H5", "JK"]).meld).toEqual({ type: "meld", cards: ["H5", "JK", "H7"] });
    expect(offer(legal, ["H7", "H5"]).meld).toBeNull();
    expect(offer(legal, []).melds.map((m) => m.cards)).toEqual([
      ["H5", "JK", "H7"],
      ["S9", "D9", "C9"],
    ]);
  });

  it("carries what a meld's joker would stand for, from the listing's layouts", () => {
    const index = legal.findIndex((m) => m.type === "meld");
    const layout = { type: "run" as const, cards: ["H5", "JK", "H7"], jokers: { "1": "H6" } };
    const melds = offer(legal, [], { [String(index)]: layout }).melds;
    expect(melds[0]?.layout).toEqual(layout);
    expect(melds[1]?.layout).toBeNull();
  });

  it("offers lay-offs per meld and discards for one selected card", () => {
    const one = offer(legal, ["H8"]);
    expect([...one.layoffs.keys()]).toEqual([2]);
    expect(one.discard).toEqual({ type: "discard", card: "H8" });
    const two = offer(legal, ["H9", "H8"]);
    expect([...two.layoffs.keys()]).toEqual([3]);
    expect(two.discard).toBeNull();
    expect(offer(legal, ["D4"]).swaps.get(4)).toEqual({ type: "swap_joker", meld: 4, card: "D4" });
    expect(offer(legal, []).swapOptions).toEqual([{ meld: 4, card: "D4" }]);
    expect(offer(legal, []).layoffOptions).toEqual([
      { meld: 2, cards: ["H8"] },
      { meld: 3, cards: ["H8", "H9"] },
    ]);
  });

  it("offers no draw from the discard pile unless listed", () => {
    const o = offer(legal, []);
    expect(o.drawStock).toEqual({ type: "draw", source: "stock" });
    expect(o.drawDiscard).toBeNull();
    expect(o.reengage).toBeNull();
    expect(o.declineReengage).toBeNull();
    expect(offer([], ["H8"]).discard).toBeNull();
  });

  it("offers the re-engage decision only to the seat whose legal moves list it", () => {
    const deciding = offer([{ type: "reengage" }, { type: "decline_reengage" }], []);
    expect(deciding.reengage).toEqual({ type: "reengage" });
    expect(deciding.declineReengage).toEqual({ type: "decline_reengage" });
    expect(deciding.drawStock).toBeNull();
    expect(deciding.discard).toBeNull();
    const others = offer([], []);
    expect(others.reengage).toBeNull();
    expect(others.declineReengage).toBeNull();
  });
});

describe("suggestions", () => {
  const melds = [
    ["H2", "H3", "H4"],
    ["S7", "H7", "D7", "C7"],
    ["H2", "H3", "H4", "H5"],
    ["D9", "D10", "JK"],
    ["S7", "H7", "D7"],
  ];
  const same = (cards: readonly string[]) => cards;

  it("puts the largest first and folds the rest past the limit", () => {
    const { shown, folded } = rankSuggestions(melds, same, [], 3);
    expect(shown).toEqual([["S7", "H7", "D7", "C7"], ["H2", "H3", "H4", "H5"], ["H2", "H3", "H4"]]);
    expect(folded).toEqual([["D9", "D10", "JK"], ["S7", "H7", "D7"]]);
  });

  it("puts the ones holding every selected card first", () => {
    const { shown } = rankSuggestions(melds, same, ["JK"], 2);
    expect(shown[0]).toEqual(["D9", "D10", "JK"]);
    const sevens = rankSuggestions(melds, same, ["H7", "S7"], 2).shown;
    expect(sevens).toEqual([["S7", "H7", "D7", "C7"], ["S7", "H7", "D7"]]);
  });
});
