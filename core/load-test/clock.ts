import type { Clock } from './ports.js';

/**
 * Node's timers fire a millisecond or more late; an open-model arrival issued that late carries
 * the lateness in its latency (measured from the schedule). So the real clock polls with
 * setImmediate (which lets I/O run between polls) for the end of a wait, bringing lateness down to
 * tens of microseconds. Polling is a busy loop, so it is bounded: at most 1 ms, and at most a tenth
 * of the wait. Long waits (low rates, where 1 ms matters most relative to the gaps) are precise;
 * at high rates the waits are short, arrivals are issued in timer-sized batches, and the
 * generator does not burn a core competing with the responses it is timing.
 */
const MAX_POLL_MS = 1;
const POLL_SHARE_OF_WAIT = 0.1;

/**
 * The real clock: `performance.now()` (monotonic, sub-microsecond resolution) for latencies,
 * `Date.now()` for the shared start and deadlines, timers then polling for waiting.
 */
export const systemClock: Clock = {
  nowUs: () => performance.now() * 1000,
  epochMs: () => Date.now(),
  sleepUntil: (targetUs, signal) => {
    const waitMs = (targetUs - performance.now() * 1000) / 1000;
    if (signal?.aborted === true || waitMs <= 0) return Promise.resolve();
    const pollMs = Math.min(MAX_POLL_MS, waitMs * POLL_SHARE_OF_WAIT);
    return new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let poll: ReturnType<typeof setImmediate> | undefined;
      const onAbort = (): void => {
        clearTimeout(timer);
        clearImmediate(poll);
        resolve();
      };
      const wait = (): void => {
        const remainingMs = (targetUs - performance.now() * 1000) / 1000;
        if (remainingMs <= 0) {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        } else if (remainingMs > pollMs) {
          timer = setTimeout(wait, remainingMs - pollMs);
        } else {
          poll = setImmediate(wait);
        }
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      wait();
    });
  },
};
