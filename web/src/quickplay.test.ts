import { afterEach, describe, expect, it } from "vitest";
import { setLanguage } from "./i18n";
import { demandLines, parseTable } from "./quickplay";

afterEach(() => setLanguage("en"));

describe("quick play", () => {
  it("reads a table's preset and player count", () => {
    expect(parseTable("standard:4")).toEqual({ preset: "standard", players: 4 });
    expect(parseTable("meld_first:2")).toEqual({ preset: "meld_first", players: 2 });
  });

  it("says how many wait for each table, in order, in the page's language", () => {
    const waiting = { "standard:4": 3, "express:2": 1, "block:5": 0 };
    const english = demandLines(waiting);
    expect(english).toHaveLength(2);
    expect(english[0]).toContain("1 player waiting");
    expect(english[1]).toContain("3 players waiting");
    setLanguage("is");
    expect(demandLines(waiting)[1]).toContain("3 leikmenn bíða");
  });
});
