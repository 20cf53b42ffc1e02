/**
 * A `fetch` that waits out an unreachable service: it retries a request the
 * service did not take (network failure, 429, 503), after `Retry-After` when the
 * answer gives one, and reports whether the service is reachable meanwhile.
 */

export type Connection = "online" | "reconnecting";

export interface RetryOptions {
  /** Told "reconnecting" while requests fail to reach the service, "online" once one does. */
  onConnection?: (state: Connection) => void;
  /** Waits `ms` (tests replace it). */
  sleep?: (ms: number, signal?: AbortSignal | null) => Promise<void>;
  /** The fetch to wrap. */
  fetch?: typeof fetch;
  /** Longest wait between two tries, in ms. */
  maxDelay?: number;
}

/** Seconds of a `Retry-After` header (delta-seconds or an HTTP date) in ms, or null. */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export function abortableSleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Whether a request may be sent again after a network failure: reads may, and so
 * may writes carrying an `Idempotency-Key` (the service never applies one twice).
 * A 429 or 503 answer means the service did not act, so any request may be resent.
 */
export function mayResend(request: Request): boolean {
  return request.method === "GET" || request.headers.has("Idempotency-Key");
}

export function retryingFetch(options: RetryOptions = {}): (input: Request) => Promise<Response> {
  const baseFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const sleep = options.sleep ?? abortableSleep;
  const maxDelay = options.maxDelay ?? 30_000;
  const report = options.onConnection ?? (() => undefined);
  return async (request: Request): Promise<Response> => {
    let failures = 0;
    for (;;) {
      const attempt = request.clone();
      let response: Response;
      try {
        response = await baseFetch(attempt);
      } catch (error) {
        if (request.signal.aborted || !mayResend(request)) throw error;
        report("reconnecting");
        failures += 1;
        await sleep(Math.min(maxDelay, 500 * 2 ** Math.min(failures, 6)), request.signal);
        continue;
      }
      if (response.status === 429 || response.status === 503) {
        if (response.status === 503) report("reconnecting");
        failures += 1;
        const wait = retryAfterMs(response.headers.get("Retry-After"));
        await sleep(
          Math.min(maxDelay, wait ?? 500 * 2 ** Math.min(failures, 6)),
          request.signal,
        );
        continue;
      }
      report("online");
      return response;
    }
  };
}
