import { afterEach, describe, expect, it } from "vitest";
import { contract } from "./contract";
import { CATALOGUES, LANGUAGES, setLanguage } from "./i18n";
import { NOT_RULES, RULE_OPTIONS, howToPlay, targetFor } from "./rules";

// The presets' options as GET /presets gives them (the fields the panel reads).
const standard = {
  players: [2, 6], hand_size: null, ace: "low", ace_points: 1, melds_per_turn: null,
  layoff_requires_own_meld: false, go_out_requires_discard: false, rummy_bonus: "double",
  stock_refill: "shuffle", refill_keeps_top: true, max_refills: null, last_stock: "next_draw",
  no_winner: "void", scoring: "winner_takes_all", end: "target", target_score: 150, rounds: null,
  reengage: false, reengage_limit: 0, stake: null, decks: 1, jokers: 0, joker_points: 0,
  joker_limit: "natural_majority", joker_swap: false, first_meld_min_points: 0,
  concealed_rounds: [], first_turn_no_draw: false, turn_seconds: null,
};
const romme = {
  ...standard, decks: 2, jokers: 6, joker_points: 20, first_meld_min_points: 40,
  joker_swap: true, hand_size: 13, first_turn_no_draw: true,
};
const elimination = {
  ...standard, players: [2, 4], ace_points: 15, scoring: "penalty", end: "elimination",
  refill_keeps_top: false, no_winner: "count", go_out_requires_discard: true, target_score: 100,
  reengage: true, reengage_limit: 1, stake: 5,
};
const traditional = {
  ...standard, players: [2, 4], refill_keeps_top: false, max_refills: 1, last_stock: "when_empty",
  target_score: { "2": 100, "3": 150, "4": 200 },
};

afterEach(() => setLanguage("en"));

describe("how to play this preset", () => {
  it("speaks of every option of the contract, or says it is not a rule of play", () => {
    expect([...RULE_OPTIONS, ...NOT_RULES].sort()).toEqual(Object.keys(contract.options).sort());
  });

  it("has a sentence for every value of every choice the contract lists", () => {
    for (const name of ["ace", "rummy_bonus", "stock_refill", "last_stock", "no_winner", "scoring", "joker_limit"]) {
      const values = contract.options[name]?.enum ?? [];
      expect(values.length, name).toBeGreaterThan(1);
      for (const value of values) expect(CATALOGUES.en, `${name}: ${String(value)}`).toHaveProperty(`how_${name}_${String(value)}`);
    }
  });

  it("says the standard rules in play order", () => {
    const lines = howToPlay(standard, 3);
    expect(lines[0]).toBe("2 to 6 players.");
    expect(lines).toContain("One deck of 52 cards.");
    expect(lines).toContain("An ace is low in a run: A-2-3, not Q-K-A.");
    expect(lines).toContain("Going out in one turn without having melded before (rummy) doubles the round's points.");
    expect(lines).toContain("The game ends after the round in which a total reaches 150 points; the highest total wins.");
    expect(lines).toContain("A card left in a hand counts: an ace 1 point, a face card 10, any other card its number.");
    // Neither the jokers' rules nor the stock's end: there are none, and the stock is refilled for ever.
    expect(lines.join(" ")).not.toMatch(/joker|next player does not take/);
    expect(lines.indexOf("2 to 6 players.")).toBeLessThan(lines.findIndex((l) => l.startsWith("The game ends")));
  });

  it("says romme's first-meld minimum, its jokers and its first turn", () => {
    const lines = howToPlay(romme, 2);
    expect(lines).toContain("Two decks of 52 cards shuffled together.");
    expect(lines).toContain("6 jokers are added; a joker stands in a meld for any card.");
    expect(lines).toContain("Each player is dealt 13 cards.");
    expect(lines).toContain("Your first melds of a round, in one turn, must make at least 40 points; no lay-off before.");
    expect(lines).toContain("A meld never holds more jokers than natural cards.");
    expect(lines).toContain("Holding the card a melded joker stands for, you may take the joker for it.");
    expect(lines).toContain("A joker left in a hand counts 20 points.");
    expect(lines).toContain("The first player is dealt one card more and does not draw on the first turn.");
  });

  it("says elimination's lowest total, the re-engage and the stakes", () => {
    const lines = howToPlay(elimination, 3);
    expect(lines).toContain("Everyone else scores the points left in their own hand as penalty points: lower is better.");
    expect(lines).toContain("A player whose total reaches 100 points is eliminated; the last player left wins.");
    expect(lines).toContain(
      "An eliminated player may re-engage once, decided between rounds, with the highest total of those still in.",
    );
    expect(lines).toContain("Each player puts 5 chips in the pot; re-engaging costs 3 chips; the winners share the pot.");
    expect(lines).toContain("To go out, your last card must be a discard.");
    expect(lines).toContain("In a round nobody goes out of, every player scores their own hand.");
  });

  it("takes the target of the game's player count, and says when a limited stock ends the round", () => {
    expect(targetFor({ "2": 100, "3": 150, "4": 200 }, 3)).toBe(150);
    expect(targetFor({ "2": 100, "4": 200 }, 3)).toBe(200);
    expect(targetFor(120, 5)).toBe(120);
    const lines = howToPlay(traditional, 4);
    expect(lines).toContain("The game ends after the round in which a total reaches 200 points; the highest total wins.");
    expect(lines).toContain("The stock is refilled at most 1 time a round.");
    expect(lines).toContain(
      "When the last card of the stock is drawn, the round ends with that turn unless the player goes out.",
    );
    expect(howToPlay({ ...standard, end: "rounds", rounds: 6, concealed_rounds: [4, 5, 6] }, 2)).toEqual(
      expect.arrayContaining([
        "The game lasts 6 rounds; the highest total wins.",
        "In rounds 4, 5 and 6 you meld only when you go out, the whole hand at once.",
      ]),
    );
  });

  it("speaks each language with no English sentence left", () => {
    const englishLines = howToPlay(romme, 2).concat(howToPlay(elimination, 2));
    const english = new Set(englishLines);
    for (const lang of LANGUAGES.filter((l) => l !== "en")) {
      setLanguage(lang);
      const lines = howToPlay(romme, 2).concat(howToPlay(elimination, 2));
      expect(lines.length).toBe(englishLines.length);
      for (const line of lines) expect(english.has(line), `${lang}: ${line}`).toBe(false);
    }
    setLanguage("is");
    expect(howToPlay(romme, 2)).toContain("Fyrsta niðurlögn þín í umferð, í einum leik, verður að ná 40 stigum; fyrr má ekki bæta við.");
    setLanguage("el");
    expect(howToPlay(elimination, 2)).toContain("Όποιος φτάσει τους 100 πόντους αποκλείεται· κερδίζει ο τελευταίος που μένει.");
  });
});
