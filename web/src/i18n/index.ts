/**
 * The page's words in five languages: one catalogue per language (en.ts, is.ts, da.ts,
 * sv.ts, el.ts), each typed as English's keys so a missing or extra key fails `tsc`.
 * Plurals by `Intl.PluralRules`, numbers by `Intl.NumberFormat`; no library: the
 * page needs placeholders, plural categories and a language switch, and the browser's
 * `Intl` does the part that is hard.
 */

import { da } from "./da";
import { el } from "./el";
import { en } from "./en";
import { is } from "./is";
import { sv } from "./sv";

/** Plural forms by `Intl.PluralRules` category; `other` always, `one` in all five. */
export interface PluralForms {
  one: string;
  other: string;
  zero?: string;
  two?: string;
  few?: string;
  many?: string;
}

type English = typeof en;
export type Key = keyof English;
/** A catalogue: every key of English's, each a string or plural forms as English's is. */
export type Catalogue = { [K in Key]: English[K] extends string ? string : PluralForms };
export type TextKey = { [K in Key]: English[K] extends string ? K : never }[Key];
export type PluralKey = { [K in Key]: English[K] extends string ? never : K }[Key];

export const LANGUAGES = ["en", "is", "da", "sv", "el"] as const;
export type Lang = (typeof LANGUAGES)[number];

export const CATALOGUES: Record<Lang, Catalogue> = { en, is, da, sv, el };

const LANG_KEY = "rummy.lang";

function store(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** The first of the reader's languages the page speaks ("is-IS" → "is"), else English. */
export function pickLanguage(preferred: readonly string[]): Lang {
  for (const tag of preferred) {
    const base = tag.toLowerCase().split("-")[0] ?? "";
    // Norwegian readers are closer to Danish than to English.
    const lang = base === "nb" || base === "no" || base === "nn" ? "da" : base;
    if ((LANGUAGES as readonly string[]).includes(lang)) return lang as Lang;
  }
  return "en";
}

/** The remembered choice, else from `navigator.languages`. */
export function initialLanguage(): Lang {
  const saved = store()?.getItem(LANG_KEY);
  if (saved != null && (LANGUAGES as readonly string[]).includes(saved)) return saved as Lang;
  const nav = globalThis.navigator as Navigator | undefined;
  return pickLanguage(nav?.languages ?? (nav?.language !== undefined ? [nav.language] : []));
}

let current: Lang = "en";
const listeners = new Set<(lang: Lang) => void>();

export function language(): Lang {
  return current;
}

/** Switch the page's language (remembered when `remember`), `<html lang>` with it. */
export function setLanguage(lang: Lang, remember = false): void {
  current = lang;
  if (remember) store()?.setItem(LANG_KEY, lang);
  const doc = globalThis.document as Document | undefined;
  if (doc !== undefined) {
    doc.documentElement.lang = lang;
    doc.title = CATALOGUES[lang].brand;
  }
  for (const listener of listeners) listener(lang);
}

export function onLanguage(listener: (lang: Lang) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export type Params = Record<string, string | number>;

const numberFormats = new Map<string, Intl.NumberFormat>();
const pluralRules = new Map<string, Intl.PluralRules>();

/** A number as the language (or `locale`) writes it: 1250 → "1,250" (en), "1.250" (is). */
export function formatNumber(value: number, locale: string = current): string {
  let format = numberFormats.get(locale);
  if (format === undefined) {
    format = new Intl.NumberFormat(locale);
    numberFormats.set(locale, format);
  }
  return format.format(value);
}

function fill(template: string, params: Params, locale: string): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    if (value === undefined) return whole;
    return typeof value === "number" ? formatNumber(value, locale) : value;
  });
}

/** The text of `key` in the current language with its placeholders filled. */
export function t(key: TextKey, params: Params = {}, lang: Lang = current): string {
  return fill(CATALOGUES[lang][key], params, lang);
}

/** The plural form of `key` for `n` (`{n}` the number as the language writes it).
 * `locale` changes the number format only. */
export function tn(key: PluralKey, n: number, params: Params = {}, locale?: string, lang: Lang = current): string {
  let rules = pluralRules.get(lang);
  if (rules === undefined) {
    rules = new Intl.PluralRules(lang);
    pluralRules.set(lang, rules);
  }
  const forms = CATALOGUES[lang][key];
  const form = forms[rules.select(n) as keyof PluralForms] ?? forms.other;
  return fill(form, { ...params, n }, locale ?? lang);
}

/** "Ann", "Ann and Bob", "Ann, Bob and Cy" in the current language. */
export function joinNames(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? "";
  const head = names.slice(0, -1).join(t("list_sep"));
  return t("and", { a: head, b: names[names.length - 1] as string });
}
