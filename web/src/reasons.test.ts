import { afterEach, describe, expect, it } from "vitest";
import type { GameView } from "./api/client";
import { setLanguage } from "./i18n";
import { offer } from "./moves";
import { actionReasons, reasonText, refusalText, turnText } from "./reasons";

afterEach(() => setLanguage("en"));

const FIRST_MELD = { code: "first_meld_minimum", detail: "…", needed: 40, have: 9 } as const;

function playView(): GameView {
  return {
    id: "g", version: 3, status: "active", preset: "romme", options: {}, you: 0, hand: ["H5", "S7"],
    seats: [
      { seat: 0, name: "Ann", kind: "human", hand_size: 2, score: 0 },
      { seat: 1, name: "Bob", kind: "human", hand_size: 13, score: 0 },
    ],
    round: {
      number: 1, dealer: 1, turn: 0, phase: "play", stock_size: 20, refills: 0,
      discard_pile: ["H2"], taken_discard: null, melds: [],
    },
    rounds: [], winners: null, last_event: 4,
  } as unknown as GameView;
}

describe("why a control is disabled", () => {
  it("words the first-meld minimum with its figures in every language", () => {
    expect(reasonText(FIRST_MELD)).toBe(
      "Your first melds must make 40 points in all before you lay off or discard; yours make 9.",
    );
    setLanguage("is");
    expect(reasonText(FIRST_MELD)).toBe(
      "Fyrsta niðurlögn þín verður að ná samtals 40 stigum áður en þú bætir við eða kastar; þín nær 9.",
    );
    setLanguage("da");
    expect(reasonText(FIRST_MELD)).toContain("40 point");
    setLanguage("sv");
    expect(reasonText(FIRST_MELD)).toContain("40 poäng");
    setLanguage("el");
    expect(reasonText(FIRST_MELD)).toContain("40 πόντους");
    expect(reasonText(FIRST_MELD)).toContain("9");
  });

  it("has words for every code and a fallback for one it does not know", () => {
    expect(reasonText({ code: "not_your_turn" })).toBe("It is not your turn.");
    expect(reasonText({ code: "must_draw_first" })).toBe("Draw a card first.");
    expect(reasonText({ code: "something_new" as "not_your_turn" })).toBe("Not possible now.");
  });

  it("explains each disabled button of the table", () => {
    const reasons = { discard: FIRST_MELD, layoff: FIRST_MELD, draw: { code: "already_drew" as const, detail: "" } };
    const why = actionReasons(reasons, offer([], []), 0, false);
    expect(why.discard).toContain("40 points");
    expect(why.drawStock).toBe("You have already drawn this turn.");
    expect(why.meld).toBe("Select cards that make a meld.");
    // Discards possible, but not of what is selected.
    const legal = [{ type: "discard", card: "H5" }] as Parameters<typeof offer>[0];
    expect(actionReasons({}, offer(legal, []), 0, false).discard).toBe("Select one card to discard.");
    expect(actionReasons({}, offer(legal, ["S7"]), 1, false).discard).toBe("That card cannot be discarded now.");
    expect(actionReasons({}, offer(legal, ["H5"]), 1, false).discard).toBeNull();
  });

  it("keeps the status line to what the buttons allow", () => {
    expect(turnText(playView(), 0)).toBe("Your turn: meld or lay off if you like, then discard a card.");
    const status = turnText(playView(), 0, { discard: FIRST_MELD });
    expect(status).toBe("Your turn: meld 40 points in all before you lay off or discard (yours so far: 9).");
    expect(status).not.toContain("then discard");
    setLanguage("sv");
    expect(turnText(playView(), 0, { discard: FIRST_MELD })).toBe(
      "Din tur: lägg ut 40 poäng sammanlagt innan du lägger på eller slänger (hittills: 9).",
    );
  });

  it("words a refused move by its code in the page's language", () => {
    setLanguage("da");
    expect(refusalText({ code: "not_your_turn", detail: "another seat is to move" })).toBe("Det er ikke din tur.");
    expect(refusalText({ code: "rate_limited", detail: "slow down" })).toBe(
      "For mange forespørgsler: vent et øjeblik, og prøv igen.",
    );
    expect(refusalText({ code: "invalid_json", detail: "the body is not JSON" })).toBe("the body is not JSON");
  });
});
