import { afterEach, describe, expect, it } from "vitest";
import { cardLabel, cardText } from "../cards";
import { describeEvent, quantity } from "../events";
import { CATALOGUES, LANGUAGES, type PluralForms, formatNumber, joinNames, pickLanguage, setLanguage, t, tn } from "./index";

afterEach(() => setLanguage("en"));

const english = CATALOGUES.en as Record<string, string | PluralForms>;

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string).sort();
}

describe("the message catalogues", () => {
  it("hold every key of English's in all five languages, none empty, with the same placeholders", () => {
    for (const lang of LANGUAGES) {
      const catalogue = CATALOGUES[lang] as Record<string, string | PluralForms>;
      expect(Object.keys(catalogue).sort(), lang).toEqual(Object.keys(english).sort());
      for (const [key, value] of Object.entries(catalogue)) {
        const source = english[key] as string | PluralForms;
        if (typeof source === "string") {
          expect(typeof value, `${lang}.${key}`).toBe("string");
          expect((value as string).trim(), `${lang}.${key}`).not.toBe("");
          expect(placeholders(value as string), `${lang}.${key}`).toEqual(placeholders(source));
        } else {
          const forms = value as PluralForms;
          for (const form of [forms.one, forms.other]) {
            expect(form.trim(), `${lang}.${key}`).not.toBe("");
            expect(placeholders(form), `${lang}.${key}`).toEqual(placeholders(source.other));
          }
        }
      }
    }
  });

  it("has a plural form for every category the language's rules use", () => {
    for (const lang of LANGUAGES) {
      const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
      for (const value of Object.values(CATALOGUES[lang])) {
        if (typeof value === "string") continue;
        for (const category of categories) {
          expect(value[category as keyof PluralForms] ?? (category === "other" ? value.other : undefined), `${lang} ${category}`).toBeDefined();
        }
      }
    }
  });

  it("picks the first language of the reader's list the page speaks", () => {
    expect(pickLanguage(["is-IS", "en"])).toBe("is");
    expect(pickLanguage(["de-DE", "sv-SE", "da"])).toBe("sv");
    expect(pickLanguage(["el"])).toBe("el");
    expect(pickLanguage(["nb-NO"])).toBe("da");
    expect(pickLanguage(["fr-FR"])).toBe("en");
    expect(pickLanguage([])).toBe("en");
  });
});

describe("plurals and numbers by Intl", () => {
  it("counts in English", () => {
    expect(quantity(1, "point")).toBe("1 point");
    expect(quantity(21, "point")).toBe("21 points");
    expect(quantity(1250, "chip")).toBe("1,250 chips");
  });

  it("takes Icelandic's singular for 21 and 31 (not 11), and writes 1.250", () => {
    setLanguage("is");
    expect(tn("seconds_left", 1)).toBe("1 sekúnda eftir");
    expect(tn("seconds_left", 21)).toBe("21 sekúnda eftir");
    expect(tn("seconds_left", 11)).toBe("11 sekúndur eftir");
    expect(tn("seconds_left", 12)).toBe("12 sekúndur eftir");
    expect(quantity(1250, "point")).toBe("1.250 stigum");
  });

  it("counts in Greek (accusative after «με»), Danish and Swedish", () => {
    setLanguage("el");
    expect(quantity(1, "point")).toBe("1 πόντο");
    expect(quantity(140, "point")).toBe("140 πόντους");
    expect(t("reengage_with", { points: quantity(62, "point") })).toBe("Ξαναμπαίνω με 62 πόντους");
    setLanguage("da");
    expect(quantity(5, "chip")).toBe("5 jetoner");
    expect(quantity(1, "chip")).toBe("1 jeton");
    setLanguage("sv");
    expect(quantity(1, "chip")).toBe("1 mark");
    expect(formatNumber(1250)).toBe(new Intl.NumberFormat("sv").format(1250));
  });

  it("joins names the language's way", () => {
    expect(joinNames(["Ann", "Bob", "Cy"])).toBe("Ann, Bob and Cy");
    setLanguage("sv");
    expect(joinNames(["Ann", "Bob"])).toBe("Ann och Bob");
  });
});

describe("cards and events in each language", () => {
  it("names the cards", () => {
    expect(cardLabel("HQ")).toBe("queen of hearts");
    setLanguage("sv");
    expect(cardLabel("HQ")).toBe("hjärter dam");
    expect(cardText("HQ")).toBe("D♥");
    setLanguage("da");
    expect(cardLabel("S7")).toBe("spar 7");
    setLanguage("el");
    expect(cardLabel("HK")).toBe("ρήγας κούπα");
    expect(cardLabel("JK")).toBe("μπαλαντέρ");
    setLanguage("is");
    expect(cardLabel("CA")).toBe("lauf ás");
  });

  it("says who plays first, with the reader's own grammar", () => {
    const name = (seat: number): string => (seat === 0 ? t("you_plain") : "Bob");
    expect(describeEvent({ type: "round_started", number: 2, first: 0 }, name, 0)).toBe(
      "Round 2 was dealt; you play first.",
    );
    expect(describeEvent({ type: "round_started", number: 2, first: 1 }, name, 0)).toBe(
      "Round 2 was dealt; Bob plays first.",
    );
    setLanguage("el");
    expect(describeEvent({ type: "discarded", seat: 0, card: "H7" }, name, 0)).toBe("Πέταξες 7♥.");
    expect(describeEvent({ type: "discarded", seat: 1, card: "H7" }, name, 0)).toBe("Ο/Η Bob πέταξε 7♥.");
    setLanguage("is");
    expect(describeEvent({ type: "game_ended", winners: [1] }, name, 0)).toBe("Spilinu lauk: Bob vann.");
    expect(describeEvent({ type: "game_ended", winners: [0, 1] }, name, 0)).toBe("Spilinu lauk: Þú og Bob unnu.");
  });
});
