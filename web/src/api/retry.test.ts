import { describe, expect, it } from "vitest";
import { type Connection, retryAfterMs, retryingFetch } from "./retry";

function answers(...steps: (number | "down")[]): { fetch: typeof fetch; calls: Request[] } {
  const calls: Request[] = [];
  const fake = (async (input: Request) => {
    calls.push(input);
    const step = steps.shift();
    if (step === "down" || step === undefined) throw new TypeError("Failed to fetch");
    const headers = step === 429 || step === 503 ? { "Retry-After": "3" } : undefined;
    return new Response("{}", { status: step, headers });
  }) as unknown as typeof fetch;
  return { fetch: fake, calls };
}

describe("retryingFetch", () => {
  it("waits Retry-After on 429 and 503, then answers", async () => {
    const { fetch, calls } = answers(429, 503, 200);
    const waits: number[] = [];
    const states: Connection[] = [];
    const wrapped = retryingFetch({
      fetch,
      sleep: async (ms) => void waits.push(ms),
      onConnection: (s) => states.push(s),
    });
    const response = await wrapped(new Request("http://127.0.0.1/games"));
    expect(response.status).toBe(200);
    expect(calls).toHaveLength(3);
    expect(waits).toEqual([3000, 3000]);
    expect(states).toEqual(["reconnecting", "online"]);
  });

  it("resends a move with its Idempotency-Key through an outage, and says so", async () => {
    const { fetch, calls } = answers("down", "down", 200);
    const states: Connection[] = [];
    const wrapped = retryingFetch({ fetch, sleep: async () => undefined, onConnection: (s) => states.push(s) });
    const request = new Request("http://127.0.0.1/games/g/moves", {
      method: "POST",
      headers: { "Idempotency-Key": "k1", "Content-Type": "application/json" },
      body: '{"type":"draw","source":"stock"}',
    });
    expect((await wrapped(request)).status).toBe(200);
    expect(calls.map((c) => c.headers.get("Idempotency-Key"))).toEqual(["k1", "k1", "k1"]);
    expect(await calls[2]?.text()).toBe('{"type":"draw","source":"stock"}');
    expect(states).toEqual(["reconnecting", "reconnecting", "online"]);
  });

  it("does not resend a write without a key after a network failure", async () => {
    const { fetch, calls } = answers("down", 201);
    const wrapped = retryingFetch({ fetch, sleep: async () => undefined });
    await expect(wrapped(new Request("http://127.0.0.1/games", { method: "POST", body: "{}" }))).rejects.toThrow();
    expect(calls).toHaveLength(1);
  });

  it("passes refusals through untouched", async () => {
    const { fetch, calls } = answers(409);
    const wrapped = retryingFetch({ fetch, sleep: async () => undefined });
    expect((await wrapped(new Request("http://127.0.0.1/x"))).status).toBe(409);
    expect(calls).toHaveLength(1);
  });

  it("reads Retry-After as seconds or as a date", () => {
    expect(retryAfterMs("2")).toBe(2000);
    expect(retryAfterMs("Tue, 01 Dec 2026 10:00:05 GMT", Date.parse("Tue, 01 Dec 2026 10:00:00 GMT"))).toBe(5000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs("soon")).toBeNull();
  });
});
