import type { StepDriver } from './step-driver.js';

export interface OpenModelOptions {
  /** When this worker's arrivals are scheduled: a constant rate, or a ramp. */
  readonly grid: ArrivalGrid;
  /** Requests in flight before arrivals wait in the backlog. */
  readonly maxInFlight: number;
  readonly lateToleranceUs: number;
  /** A waiting arrival older than this is dropped: it would have timed out anyway. */
  readonly requestTimeoutUs: number;
  /** Where the step's arrival grid starts: arrival i is scheduled at originUs + grid.offsetUs(i). */
  readonly originUs: number;
  /**
   * The arrivals this invocation issues, [firstArrival, endArrival): the step's, or with segments
   * this segment's part of them, so consecutive segments continue one grid, none twice or skipped.
   */
  readonly firstArrival: number;
  readonly endArrival: number;
  /** The end of this part of the step: with no arrivals (rate 0) the model waits until then. */
  readonly endUs: number;
}

/**
 * Where a step's arrivals fall, as offsets from the step's origin (warm-up included). `before` and
 * `offsetUs` describe one schedule: arrival i is among `before(t)` exactly when `offsetUs(i) < t`,
 * and segments cut a step with `before` alone, so a boundary arrival belongs to one segment.
 */
export interface ArrivalGrid {
  /** No arrival at all (a zero rate): the part waits out its time. */
  readonly empty: boolean;
  /** Arrivals at offsets below `offsetUs`. */
  before(offsetUs: number): number;
  /** The offset of arrival `index`, from 0. */
  offsetUs(index: number): number;
}

/**
 * Arrivals of a step's grid before `offsetUs` (from the grid's origin): those at offsets
 * i × interval < offsetUs. Every segment computes its bounds with this one function from schedule
 * offsets, so the arrival at a segment boundary belongs to exactly one of the two segments.
 */
export function arrivalsBefore(offsetUs: number, ratePerSecond: number): number {
  if (ratePerSecond <= 0 || offsetUs <= 0) return 0;
  return Math.ceil((offsetUs * ratePerSecond) / 1_000_000);
}

/** A constant arrival rate: arrival i at i / rate. */
export function constantGrid(ratePerSecond: number): ArrivalGrid {
  const intervalUs = 1_000_000 / ratePerSecond;
  return {
    empty: ratePerSecond <= 0,
    before: (offsetUs) => arrivalsBefore(offsetUs, ratePerSecond),
    offsetUs: (index) => index * intervalUs,
  };
}

export interface RampGridOptions {
  /** The rate of the warm-up and of the ramp's start, requests per second (0 allowed). */
  readonly fromPerSecond: number;
  /** The rate the ramp reaches at its end, above `fromPerSecond`; held after the end. */
  readonly toPerSecond: number;
  /** Where the ramp starts (the warm-up's end), µs from the origin. */
  readonly rampStartUs: number;
  /** The ramp's length (the measurement window), µs. */
  readonly rampUs: number;
}

/**
 * A warm-up at `fromPerSecond`, then a rate rising linearly to `toPerSecond` over `rampUs`. The
 * arrivals are the cumulative count N(t) = ∫ rate: arrival i is at the first t where N(t) reaches
 * i, and `before(t)` = ⌈N(t)⌉, as `arrivalsBefore` is for a constant rate. Inside the ramp, with
 * a = from, k = (to − from) / ramp and n = i − N(start), a·τ + k·τ²/2 = n gives
 * τ = 2n / (a + √(a² + 2kn)), the form that stays exact when a is 0 (no 0/0) and when k is small.
 */
export function rampGrid(options: RampGridOptions): ArrivalGrid {
  const { fromPerSecond: a, toPerSecond: b, rampStartUs, rampUs } = options;
  const rampSeconds = rampUs / 1_000_000;
  const k = (b - a) / rampSeconds;
  const atStart = (a * rampStartUs) / 1_000_000;
  const atEnd = atStart + ((a + b) / 2) * rampSeconds;
  const cumulative = (offsetUs: number): number => {
    if (offsetUs <= rampStartUs) return (a * offsetUs) / 1_000_000;
    const tau = Math.min(offsetUs - rampStartUs, rampUs) / 1_000_000;
    const after = Math.max(0, offsetUs - rampStartUs - rampUs) / 1_000_000;
    return atStart + a * tau + (k * tau * tau) / 2 + b * after;
  };
  return {
    empty: false,
    before: (offsetUs) => (offsetUs <= 0 ? 0 : Math.ceil(cumulative(offsetUs))),
    offsetUs: (index) => {
      if (a > 0 && index <= atStart) return (index * 1_000_000) / a;
      if (index >= atEnd) return rampStartUs + rampUs + ((index - atEnd) * 1_000_000) / b;
      const n = index - atStart;
      if (n <= 0) return rampStartUs;
      const tau = (2 * n) / (a + Math.sqrt(a * a + 2 * k * n));
      return rampStartUs + tau * 1_000_000;
    },
  };
}

/** FIFO of arrivals waiting for a free slot, without `Array.shift`'s O(n) copies. */
class ArrivalQueue {
  private readonly scheduled: number[] = [];
  private readonly measured: boolean[] = [];
  private head = 0;

  get size(): number {
    return this.scheduled.length - this.head;
  }

  push(scheduledUs: number, measured: boolean): void {
    this.scheduled.push(scheduledUs);
    this.measured.push(measured);
  }

  /** Removes the oldest arrival and calls `use` with it; false when empty. */
  shift(use: (scheduledUs: number, measured: boolean) => void): boolean {
    const scheduledUs = this.scheduled[this.head];
    const measured = this.measured[this.head];
    if (scheduledUs === undefined || measured === undefined) return false;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.scheduled.length) {
      this.scheduled.splice(0, this.head);
      this.measured.splice(0, this.head);
      this.head = 0;
    }
    use(scheduledUs, measured);
    return true;
  }
}

/**
 * Open model: arrivals on a fixed schedule (the grid's: every 1/rate s from the step's start, or
 * a ramp's), each issued
 * whether or not earlier ones have answered, and each timed from its scheduled start, so a stall
 * of the server shows in every request it delayed (coordinated omission corrected, as in wrk2).
 * An arrival that cannot be issued on time (all `maxInFlight` slots busy) waits and is counted
 * as late; one that waited longer than the request timeout is counted as dropped. None is
 * skipped silently. Resolves once the window is over and every arrival has settled or dropped.
 */
export async function runOpenModel(driver: StepDriver, options: OpenModelOptions): Promise<void> {
  const { clock, recorder, signal } = driver;
  if (options.grid.empty) {
    await clock.sleepUntil(options.endUs, signal);
    return;
  }
  const backlog = new ArrivalQueue();
  let issuing = true;
  let onDrained: (() => void) | undefined;
  const drained = new Promise<void>((resolve) => {
    onDrained = resolve;
  });
  const checkDrained = (): void => {
    if (!issuing && driver.inFlight === 0 && backlog.size === 0) onDrained?.();
  };

  const issue = (scheduledUs: number, measured: boolean): void => {
    if (measured && clock.nowUs() - scheduledUs > options.lateToleranceUs) recorder.late++;
    void driver.invoke().then((outcome) => {
      driver.settle(scheduledUs, clock.nowUs(), outcome, measured);
      pump();
      checkDrained();
    });
  };
  const issueOrDrop = (scheduledUs: number, measured: boolean): void => {
    const nowUs = clock.nowUs();
    if (signal.aborted || nowUs - scheduledUs > options.requestTimeoutUs) {
      if (measured) recorder.recordDropped(scheduledUs, nowUs, signal.aborted ? 'cut' : 'timeout');
      return;
    }
    issue(scheduledUs, measured);
  };
  const pump = (): void => {
    while (driver.inFlight < options.maxInFlight && backlog.shift(issueOrDrop)) {
      // issueOrDrop did the work
    }
  };

  for (let index = options.firstArrival; index < options.endArrival; index++) {
    const scheduledUs = options.originUs + options.grid.offsetUs(index);
    if (scheduledUs > clock.nowUs()) await clock.sleepUntil(scheduledUs, signal);
    const admission = driver.admit(scheduledUs);
    if (admission === 'refused') break;
    const measured = admission === 'measured';
    if (backlog.size === 0 && driver.inFlight < options.maxInFlight) {
      issue(scheduledUs, measured);
    } else {
      backlog.push(scheduledUs, measured);
      pump();
    }
  }
  issuing = false;
  if (signal.aborted) {
    while (backlog.shift(issueOrDrop)) {
      // every waiting arrival is dropped: the step was cut short
    }
  }
  checkDrained();
  await drained;
}
