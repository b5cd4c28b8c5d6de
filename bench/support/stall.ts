/** The coordinated-omission row's schedule: what an open-model window must show of one stall. */
export interface StallSchedule {
  readonly ratePerSecond: number;
  readonly windowStartEpochMs: number;
  readonly windowSeconds: number;
  readonly stallFromEpochMs: number;
  readonly stallMs: number;
}

/**
 * The latencies the schedule must show, ascending: arrival i of the window at windowStart + i /
 * rate; one arriving during the stall waits for its end; every request also takes the base latency
 * (the measured p50, what an undisturbed request takes on this machine).
 */
export function expectedLatenciesMs(schedule: StallSchedule, baseMs: number): number[] {
  const stallTo = schedule.stallFromEpochMs + schedule.stallMs;
  return Array.from({ length: schedule.ratePerSecond * schedule.windowSeconds }, (_, index) => {
    const scheduled = schedule.windowStartEpochMs + (index * 1000) / schedule.ratePerSecond;
    const held = scheduled >= schedule.stallFromEpochMs && scheduled < stallTo ? stallTo - scheduled : 0;
    return held + baseMs;
  }).sort((a, b) => a - b);
}

/**
 * Whether the whole stall fell inside the measured window. The exact p99 is computed for any
 * placement, but the row states what a stall in the middle of a window shows; a stall outside it
 * means the run and the server did not meet as planned.
 */
export function stallInsideWindow(schedule: StallSchedule): boolean {
  const windowEnd = schedule.windowStartEpochMs + schedule.windowSeconds * 1000;
  return (
    schedule.stallFromEpochMs >= schedule.windowStartEpochMs &&
    schedule.stallFromEpochMs + schedule.stallMs <= windowEnd
  );
}
