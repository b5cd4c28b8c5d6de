import { type AsyncRunOutcome, AsyncRunOutcomes } from './async-state.js';
import { ErrorNames } from './errors.js';
import { recordOf } from './records.js';
import { type RunOutcome, RunOutcomes, type ProofStatus } from './optimization-state.js';

/**
 * One exit-code scheme for every command line that runs or follows a run: the local CLIs
 * (`npm start`, `npm run start:async`) and the run API's client (`npm run -s runs -- start --wait`,
 * `status`). A script (nightly, CI) tells each outcome apart without parsing output:
 *
 * | code | meaning                                                                                |
 * | ---- | -------------------------------------------------------------------------------------- |
 * | 0    | recommended (every candidate judged) / async: every input completed                    |
 * | 1    | the run failed (an error other than "no recommendation"), timed out or was stopped      |
 * | 2    | bad input or command line: the run was refused before anything was created             |
 * | 3    | no recommendation: no candidate met the SLA                                            |
 * | 4    | no recommendation: every candidate failed / async: no input completed (FAILED,          |
 * |      | `NoInputCompletedError`)                                                               |
 * | 5    | partial: a recommendation, but some candidates failed / async: some inputs failed       |
 * | 6    | compare: the base run's recommended candidate regressed beyond noise in the new run    |
 * | 7    | target not served: a recommendation, but its proof at the target TPS did not carry it   |
 * |      | within the SLA, or no candidate that met the SLA can carry the target at all (the        |
 * |      | report's headline says which)                                                            |
 * | 130  | interrupted by SIGINT (Ctrl-C); 143: by SIGTERM (128 + the signal's number)            |
 *
 * A partial run is not 0: the winner is the best of fewer candidates than planned, which a nightly
 * run should notice; a script that accepts it tests for 5 as well. A proof that did not hold comes
 * before 0 and 5: the count the report sized for the target is disproved, whatever else the run
 * judged; so does a target no candidate can carry. A proof that could not run (`failed`) or was
 * skipped keeps the outcome's code: the report says the count is not proven. `compare` (local and runs CLI) exits 0 when the new run is
 * unchanged, improved or not comparable, 6 when it regressed.
 */
export const EXIT_CODES = {
  ok: 0,
  runFailed: 1,
  invalid: 2,
  noCandidateMetSla: 3,
  allFailed: 4,
  partial: 5,
  regressed: 6,
  proofNotHeld: 7,
  interrupted: 130,
  terminated: 143,
} as const;

/** The exit code of a run that ended with an outcome (optimization or async). */
export function exitCodeOfOutcome(outcome: RunOutcome | AsyncRunOutcome): number {
  switch (outcome) {
    case RunOutcomes.recommended:
    case AsyncRunOutcomes.completed:
      return EXIT_CODES.ok;
    case RunOutcomes.partial:
      return EXIT_CODES.partial;
    // No candidate both met the SLA and kept to the output-quality rule: no recommendation, as 3 says.
    case RunOutcomes.noCandidateMetSla:
    case RunOutcomes.noCandidatePassedQuality:
      return EXIT_CODES.noCandidateMetSla;
    case RunOutcomes.allCandidatesFailed:
    case AsyncRunOutcomes.allInputsFailed:
      return EXIT_CODES.allFailed;
  }
}

const OUTCOMES: readonly string[] = [...Object.values(RunOutcomes), ...Object.values(AsyncRunOutcomes)];

function isOutcome(value: string | undefined): value is RunOutcome | AsyncRunOutcome {
  return value !== undefined && OUTCOMES.includes(value);
}

/** The proof's status (`summary.proof.status`, core/serving/prove-target.ts) that disproves the count. */
export const PROOF_NOT_HELD = 'not-held' satisfies ProofStatus;

/**
 * The proof's status in an optimization run's summary (its output: "Record proof" leaves the verdict
 * at `proof`), or undefined when the run proved no target.
 */
export function proofStatusOf(summary: unknown): string | undefined {
  const proof = recordOf(recordOf(summary)?.proof);
  const status = proof?.status;
  if (proof?.targetNotCarried === true) return TARGET_NOT_CARRIED;
  return typeof status === 'string' && status !== '' ? status : undefined;
}

/**
 * What `proofStatusOf` gives when no candidate that met the SLA can carry the target: the proof had
 * nothing to deploy, and the target is not served, as when a proof does not hold.
 */
export const TARGET_NOT_CARRIED = 'target-not-carried';

/**
 * The exit code of a run that ended as Step Functions reports it: its status, its error (FAILED),
 * the outcome its output or its "No recommendation" cause names, and its proof's status at the
 * target (`proof`, when the run proved one). An outcome this version does not know counts as the
 * status alone.
 */
export function exitCodeOfRun(run: {
  readonly status: string;
  readonly error?: string;
  readonly outcome?: string;
  readonly proof?: string;
}): number {
  if (run.status === 'SUCCEEDED') {
    if (run.proof === PROOF_NOT_HELD || run.proof === TARGET_NOT_CARRIED) return EXIT_CODES.proofNotHeld;
    return isOutcome(run.outcome) ? exitCodeOfOutcome(run.outcome) : EXIT_CODES.ok;
  }
  if (run.status === 'FAILED' && run.error === ErrorNames.noRecommendation) {
    return isOutcome(run.outcome) ? exitCodeOfOutcome(run.outcome) : EXIT_CODES.noCandidateMetSla;
  }
  // "No input completed": the async run ran to its end, summary written, without one result.
  if (run.status === 'FAILED' && run.error === ErrorNames.noInputCompleted) return EXIT_CODES.allFailed;
  // "Run refused": the first state found the input invalid or over budget; nothing was created.
  if (
    run.status === 'FAILED' &&
    (run.error === ErrorNames.invalidRunInput || run.error === ErrorNames.budgetExceeded)
  ) {
    return EXIT_CODES.invalid;
  }
  return EXIT_CODES.runFailed;
}
