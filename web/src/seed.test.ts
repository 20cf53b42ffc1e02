import { describe, expect, it } from "vitest";
import { clientSeed } from "./seed";

describe("client seeds", () => {
  it("are 32 random characters a client seed may hold", () => {
    const seeds = new Set(Array.from({ length: 50 }, () => clientSeed()));
    expect(seeds.size).toBe(50);
    for (const seed of seeds) expect(seed).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });
});
