import type { Clock } from '../../../../core/load-test/ports.js';

interface Timer {
  readonly atUs: number;
  readonly order: number;
  readonly resolve: () => void;
}

/**
 * Simulated time for deterministic tests: time only moves when every pending piece of work is
 * waiting on this clock. Each step runs on a macrotask (setImmediate), after all promise callbacks
 * of the previous step have run, then jumps to the earliest timer and wakes everything due then.
 * Work that never waits on the clock (a transport answering in zero time) would spin forever, so
 * stub transports always take some time.
 */
export class VirtualClock implements Clock {
  private currentUs = 0;
  private order = 0;
  private timers: Timer[] = [];
  private stepping = false;

  constructor(private readonly epochAtZeroMs: number = Date.UTC(2025, 0, 1)) {}

  nowUs(): number {
    return this.currentUs;
  }

  epochMs(): number {
    return this.epochAtZeroMs + this.currentUs / 1000;
  }

  sleepUntil(targetUs: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true || targetUs <= this.currentUs) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const onAbort = (): void => {
        this.timers = this.timers.filter((candidate) => candidate !== timer);
        resolve();
      };
      // A timer that comes due takes its listener off the signal, as the system clock does: a load
      // test shares one signal across thousands of waits, and Node's addEventListener walks the
      // signal's listeners on every call, so listeners left behind make each wait slower.
      const timer: Timer = {
        atUs: targetUs,
        order: this.order++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.insert(timer);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.scheduleStep();
    });
  }

  /** Monotonic microseconds of an epoch time on this clock. */
  usAtEpoch(epochMs: number): number {
    return (epochMs - this.epochAtZeroMs) * 1000;
  }

  private insert(timer: Timer): void {
    let low = 0;
    let high = this.timers.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const other = this.timers[middle];
      if (
        other !== undefined &&
        (other.atUs < timer.atUs || (other.atUs === timer.atUs && other.order < timer.order))
      ) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    this.timers.splice(low, 0, timer);
  }

  private scheduleStep(): void {
    if (this.stepping) return;
    this.stepping = true;
    setImmediate(() => {
      this.stepping = false;
      const first = this.timers[0];
      if (first === undefined) return;
      this.currentUs = Math.max(this.currentUs, first.atUs);
      let due = 0;
      while (due < this.timers.length && (this.timers[due]?.atUs ?? Infinity) <= this.currentUs) due++;
      const woken = this.timers.splice(0, due);
      for (const timer of woken) timer.resolve();
      if (this.timers.length > 0) this.scheduleStep();
    });
  }
}
