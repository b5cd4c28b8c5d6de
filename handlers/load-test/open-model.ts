import type { StepDriver } from './step-driver.js';

export interface OpenModelOptions {
  /** This worker's arrival rate, requests per second. */
  readonly ratePerSecond: number;
  /** Requests in flight before arrivals wait in the backlog. */
  readonly maxInFlight: number;
  readonly lateToleranceUs: number;
  /** A waiting arrival older than this is dropped: it would have timed out anyway. */
  readonly requestTimeoutUs: number;
  /** Where the step's arrival grid starts: arrival i is scheduled at originUs + i / rate. */
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
 * Arrivals of a step's grid before `offsetUs` (from the grid's origin): those at offsets
 * i × interval < offsetUs. Every segment computes its bounds with this one function from schedule
 * offsets, so the arrival at a segment boundary belongs to exactly one of the two segments.
 */
export function arrivalsBefore(offsetUs: number, ratePerSecond: number): number {
  if (ratePerSecond <= 0 || offsetUs <= 0) return 0;
  return Math.ceil((offsetUs * ratePerSecond) / 1_000_000);
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
 * Open model: arrivals on a fixed schedule (every 1/rate s from the step's start), each issued
 * whether or not earlier ones have answered, and each timed from its scheduled start, so a stall
 * of the server shows in every request it delayed (coordinated omission corrected, as in wrk2).
 * An arrival that cannot be issued on time (all `maxInFlight` slots busy) waits and is counted
 * as late; one that waited longer than the request timeout is counted as dropped. None is
 * skipped silently. Resolves once the window is over and every arrival has settled or dropped.
 */
export async function runOpenModel(driver: StepDriver, options: OpenModelOptions): Promise<void> {
  const { clock, recorder, signal } = driver;
  if (options.ratePerSecond <= 0) {
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
    if (signal.aborted || clock.nowUs() - scheduledUs > options.requestTimeoutUs) {
      if (measured) recorder.dropped++;
      return;
    }
    issue(scheduledUs, measured);
  };
  const pump = (): void => {
    while (driver.inFlight < options.maxInFlight && backlog.shift(issueOrDrop)) {
      // issueOrDrop did the work
    }
  };

  const intervalUs = 1_000_000 / options.ratePerSecond;
  for (let index = options.firstArrival; index < options.endArrival; index++) {
    const scheduledUs = options.originUs + index * intervalUs;
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
