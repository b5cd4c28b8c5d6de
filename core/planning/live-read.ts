import { ErrorNames } from '../contracts/index.js';

/**
 * How the planner retries a live read of the market (the Price List API, EC2) that the service
 * throttled: a few attempts with a growing pause, then the caller falls back to the recorded
 * tables. On AWS the SDK client has already retried the request by then (its standard retry
 * strategy); these attempts ride out a longer burst without holding "Validate and plan" for long.
 */
export interface LiveReadRetry {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  /** The pause before the second attempt; doubled before each later one. */
  readonly firstDelayMs: number;
  /** @default a timer (tests pass one that records the pauses) */
  readonly sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_LIVE_READ_RETRY: LiveReadRetry = { attempts: 3, firstDelayMs: 500 };

function sleepFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `read`, again after a pause while it fails with a TransientServiceError, up to `retry.attempts`. */
export async function withLiveReadRetry<T>(
  read: () => Promise<T>,
  retry: LiveReadRetry = DEFAULT_LIVE_READ_RETRY,
): Promise<T> {
  const sleep = retry.sleep ?? sleepFor;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await read();
    } catch (error) {
      const transient = error instanceof Error && error.name === ErrorNames.transientService;
      if (!transient || attempt >= retry.attempts) throw error;
      await sleep(retry.firstDelayMs * 2 ** (attempt - 1));
    }
  }
}

/** `2026-11-28` of a date, in UTC: the day a price read is kept for. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Whole days from `day` (`YYYY-MM-DD`) to `now`. */
export function daysSince(day: string, now: Date): number {
  return Math.floor((now.getTime() - Date.parse(`${day}T00:00:00Z`)) / 86_400_000);
}
