/**
 * Client seeds (docs/fairness.md): each seat /play creates or joins sends one,
 * so the deals come from secrets the server could not choose alone.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** A random client seed: 32 characters of A-Z a-z 0-9 - _ (192 bits) from the browser's cryptographic generator. */
export function clientSeed(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  // 64 symbols: each byte's low six bits pick one, every symbol equally likely.
  return Array.from(bytes, (byte) => ALPHABET[byte & 63]).join("");
}
