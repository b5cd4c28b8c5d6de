import { type CompletedWork, withCompletedWork, describeError, s3Uri } from '../../contracts/index.js';
import type { CleanUpResult, CleanUpStepEvent } from '../../contracts/index.js';
import type { ObjectStore } from '../../ports/index.js';
import { loadTestResultKey } from './load-test-results.js';
import { type CleanUpDeps, cleanUpRun } from '../../deployment/index.js';

/**
 * States "Clean up run resources" (success), "Delete candidates not kept" and "Clean up after
 * failure" of the optimization: the run clean-up every path ends with
 * (core/deployment/run-clean-up.ts, where it is documented), over the optimization's resources,
 * its compilation jobs included. The async workflow and the failed-run Lambda run the same clean-up
 * through their own steps.
 *
 * After a failure, the run's error also says where the work is (`storedMeasurements`): a run that
 * failed in "Recommend", or after it, still points to what it measured. The clean-up reads it rather
 * than a Catch on "Recommend": this step already receives every failure after planning, whatever
 * state failed (a timeout included), and a Lambda writes the cause's JSON whole, where a Pass
 * state's `States.JsonToString` would have to nest the original cause.
 */
export { cleanUpRun, type CleanUpDeps } from '../../deployment/index.js';

export interface CleanUpStepDeps extends CleanUpDeps {
  /** Finds the load-test results and the report stored before a failure. */
  readonly store: Pick<ObjectStore, 'head'>;
}

export async function cleanUpOptimizationRun(
  event: CleanUpStepEvent,
  deps: CleanUpStepDeps,
): Promise<CleanUpResult> {
  if (event.error === undefined) return cleanUpRun(event, deps);
  const completed = await storedMeasurements(event.plan, deps.store);
  return cleanUpRun(
    completed === undefined ? event : { ...event, error: withCompletedWork(event.error, completed) },
    deps,
  );
}

/**
 * What a failed optimization run had stored before it failed: its report when "Recommend" wrote it,
 * else each candidate's load-test result ("Aggregate load test" writes one per measured candidate;
 * a skipped or failed candidate has none). Undefined when the run failed before measuring anything.
 * A read that fails is said in the message, never thrown, so that clean-up still runs.
 */
export async function storedMeasurements(
  plan: CleanUpStepEvent['plan'],
  store: Pick<ObjectStore, 'head'>,
): Promise<CompletedWork | undefined> {
  const reportHtml = `${plan.runPrefixUri}report.html`;
  const loadTests = `${plan.runPrefixUri}load-tests/`;
  try {
    if ((await store.head(`${plan.runPrefixUri}report.json`)) !== undefined) {
      return {
        message: `The report was written before the failure: ${reportHtml} (report.json and report.md beside it).`,
        locations: [reportHtml],
      };
    }
    const stored: string[] = [];
    for (const candidate of plan.candidates) {
      const uri = s3Uri(plan.artifactsBucket, loadTestResultKey(plan.runId, candidate.id));
      if ((await store.head(uri)) !== undefined) stored.push(uri);
    }
    if (stored.length === 0) return undefined;
    return {
      message: `No report was written. ${stored.length} of ${plan.candidates.length} candidates were measured before the failure: their load-test results (each step's throughput, error rate and latency percentiles) are stored under ${loadTests}, one result.json per candidate.`,
      locations: stored,
    };
  } catch (error) {
    return {
      message: `What was measured before the failure could not be read (${describeError(error)}): the report, if written, is ${reportHtml}; each candidate's load-test result is under ${loadTests}.`,
      locations: [],
    };
  }
}
