/**
 * The few facts the page needs from the contract as values (types come from
 * openapi-typescript): read from openapi/openapi.json when the page is built, so
 * the contract stays their one description.
 */

import spec from "../openapi/openapi.json";

type Json = unknown;

/** `obj[k1][k2]…`, or undefined when any step is missing. */
function dig(obj: Json, ...keys: string[]): Json {
  let at: Json = obj;
  for (const key of keys) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<string, Json>)[key];
  }
  return at;
}

/** Follow a local `$ref` ("#/components/schemas/X") to what it names. */
function deref(node: Json): Json {
  const ref = dig(node, "$ref");
  return typeof ref === "string" ? dig(spec, ...ref.replace(/^#\//, "").split("/")) : node;
}

const schemas = (name: string): Json => dig(spec, "components", "schemas", name);
const nameSchema = deref(dig(schemas("Join"), "properties", "name"));
const botSchema = deref(dig(schemas("SeatSpec"), "properties", "bot"));
const levelSchema = deref(dig(schemas("SeatSpec"), "properties", "level"));
const optionsSchema = deref(dig(schemas("CreateGame"), "properties", "options"));
const optionSchemas = (dig(optionsSchema, "properties") ?? {}) as Record<string, Json>;

export const contract = {
  nameMaxLength: Number(dig(nameSchema, "maxLength") ?? 32),
  bots: (dig(botSchema, "enum") ?? []) as string[],
  /** The expert's levels: number → name (`{"bot": "expert", "level": n}`). */
  levels: (dig(levelSchema, "x-level-names") ?? {}) as Record<string, string>,
  /** Per option: its JSON schema (type, enum, bounds, description) when the contract types it. */
  options: Object.fromEntries(Object.entries(optionSchemas).map(([k, v]) => [k, deref(v)])),
};
