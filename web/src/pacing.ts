/**
 * The table's moves shown one at a time: a bot's whole turn arrives in one batch of
 * events, and a person should see it play (draw, meld, discard), not land at once.
 * Items pushed while the queue is idle show at once; the rest follow `interval`
 * milliseconds apart, at most `maxWaiting` of them held back (a game of bots goes on
 * faster than anyone would watch: the older moves show at once). `skip()` shows every
 * waiting item now; an interval of 0 (reduced motion) shows everything as it arrives.
 */

/** Runs `run` after `ms` milliseconds; the answer cancels it. */
export type Schedule = (run: () => void, ms: number) => () => void;

export interface PacerOptions<T> {
  /** Milliseconds between two items shown; 0 shows every item at once. */
  interval: number;
  /** The most items held back; older ones show at once. */
  maxWaiting?: number;
  /** One item now shown (in the order pushed). */
  onShow: (item: T) => void;
  schedule?: Schedule;
}

const timeout: Schedule = (run, ms) => {
  const timer = setTimeout(run, ms);
  return () => clearTimeout(timer);
};

/** About the time a person takes to see one move (and short enough for a bot's turn). */
export const MOVE_INTERVAL_MS = 400;

/** A bot's longest turns (a draw, a few melds and lay-offs, a discard) are shown whole. */
export const MAX_WAITING_MOVES = 8;

/** The interval the page uses: none under `prefers-reduced-motion`. */
export function pageInterval(): number {
  const reduced =
    typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
  return reduced ? 0 : MOVE_INTERVAL_MS;
}

export class Pacer<T> {
  private readonly waiting: T[] = [];
  private cancel: (() => void) | null = null;
  private readonly schedule: Schedule;

  constructor(private readonly options: PacerOptions<T>) {
    this.schedule = options.schedule ?? timeout;
  }

  /** Items waiting to be shown. */
  get pending(): number {
    return this.waiting.length;
  }

  /** Queue `items`; the first shows at once when nothing was shown within the interval. */
  push(items: readonly T[], options: { now?: boolean } = {}): void {
    if (items.length === 0) return;
    this.waiting.push(...items);
    if (options.now === true || this.options.interval <= 0) {
      this.skip();
      return;
    }
    const excess = this.waiting.length - (this.options.maxWaiting ?? MAX_WAITING_MOVES);
    for (const item of this.waiting.splice(0, Math.max(0, excess))) this.options.onShow(item);
    if (this.cancel === null) this.next();
  }

  /** Show every waiting item now. */
  skip(): void {
    this.cancel?.();
    this.cancel = null;
    const shown = this.waiting.splice(0);
    for (const item of shown) this.options.onShow(item);
  }

  /** Drop what is waiting (the page leaves the game). */
  stop(): void {
    this.cancel?.();
    this.cancel = null;
    this.waiting.length = 0;
  }

  private next(): void {
    const item = this.waiting.shift();
    if (item === undefined) {
      this.cancel = null;
      return;
    }
    this.options.onShow(item);
    // The gap after an item holds the next one back, even when it arrives later.
    this.cancel = this.schedule(() => this.next(), this.options.interval);
  }
}
