import type { WorkerResult } from './results.js';
import type { LoadPlan } from '../contracts/index.js';

/**
 * When a worker counts as late. Every worker starts from the shared start "Check endpoint" set; a
 * worker that Lambda throttled (`Lambda.TooManyRequestsException`) starts only after the Task's
 * Retry, so it joins the first step after its measurement window opened (the warm-up absorbs
 * smaller delays: a worker that joins during it is on time). Until it joins, that step runs with
 * less load than it states, and the merged step is measured only over the part of the window all
 * workers covered; a whole window missed leaves the step with no throughput at all, which reads
 * as an SLA miss. A worker is late when it missed more than a tenth of the first window, and at
 * least `minMs` (below that, timer and invocation jitter, not throttling).
 */
export const LATE_WORKER_TOLERANCE = { shareOfWindow: 0.1, minMs: 250 } as const;

export interface LateWorker {
  readonly workerIndex: number;
  /** How long after the first step's window opened the worker joined it (at most the window). */
  readonly lateMs: number;
}

/** The workers that joined the first step late, by index. */
export function lateWorkers(results: readonly WorkerResult[], plan: LoadPlan): LateWorker[] {
  const windowMs = plan.stepDurationSeconds * 1000;
  const toleranceMs = Math.max(LATE_WORKER_TOLERANCE.minMs, windowMs * LATE_WORKER_TOLERANCE.shareOfWindow);
  return results
    .flatMap((result) => {
      const first = result.steps[0];
      // `activeFromMs` is where the worker's part of the window began: later when it joined late.
      if (first?.stepIndex !== 0 || first.activeFromMs <= toleranceMs) return [];
      return [{ workerIndex: result.workerIndex, lateMs: Math.round(first.activeFromMs) }];
    })
    .sort((a, b) => a.workerIndex - b.workerIndex);
}

/** One sentence for the report and the logs. */
export function describeLateWorkers(late: readonly LateWorker[], plan: LoadPlan): string {
  const windowMs = plan.stepDurationSeconds * 1000;
  const which = late
    .map((worker) =>
      worker.lateMs >= windowMs
        ? `worker ${worker.workerIndex} missed step 1's whole window`
        : `worker ${worker.workerIndex} joined step 1 ${worker.lateMs} ms into its ${windowMs} ms window`,
    )
    .join(', ');
  return `${which} (started late, e.g. throttled by Lambda and retried), so the endpoint got less load than the steps state`;
}
