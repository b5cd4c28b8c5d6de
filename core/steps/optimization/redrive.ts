import { RunRedrivenError } from '../../contracts/index.js';
import type { RedriveAware } from '../../contracts/index.js';

/**
 * What a redrive of an optimization run means: nothing to resume, start a new run.
 *
 * RedriveExecution continues a FAILED, TIMED_OUT or ABORTED Standard execution "from the
 * unsuccessful step", with the state it had, and "reschedules and redrives only the iterations and
 * branches that failed or aborted" of an inline Map or Parallel; the successful steps are not
 * re-run (Step Functions developer guide, "Restarting state machine executions with redrive":
 * https://docs.aws.amazon.com/step-functions/latest/dg/redrive-executions.html; API reference,
 * "RedriveExecution"). By then the failed-run clean-up has deleted every endpoint of the run
 * (core/operations/clean-up-failed-run.ts), so a candidate's iteration would resume at "Wait
 * for endpoint" on an endpoint that is gone, or at "Run load workers" from a shared start in the
 * past, and its figures would be wrong, not missing: an endpoint that does not answer reads as a
 * missed SLA. Re-deploying and re-planning every such state is a second workflow inside the first;
 * a new run costs the same and measures every candidate under one plan.
 *
 * So every step that deploys, checks, measures or scales a run's endpoint reads the context
 * object's `Execution.RedriveCount` (0 until the execution is redriven: "Accessing execution data
 * from the Context object", https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html)
 * and throws `RunRedrivenError` on a redrive; the workflow catches it ahead of each per-candidate
 * Catch, so the whole run fails, is cleaned up, and says to start a new run. Steps that only read
 * what was measured ("Aggregate load test", "Recommend", "Record proof") or delete go on: their
 * results stand.
 */
export function refuseRedrive(event: RedriveAware, stateName: string): void {
  const count = event.redriveCount ?? 0;
  if (count === 0) return;
  throw new RunRedrivenError(
    `"${stateName}" was resumed by a redrive (redrive ${count}): an optimization run cannot be ` +
      'redriven, since its endpoints were deleted when it stopped and its load tests were planned ' +
      'for a start now past, so what it measured next would be wrong. Start a new run with the ' +
      'same input (npm start, the API or StartExecution) instead of redriving this one',
    { stateName, redriveCount: count },
  );
}
