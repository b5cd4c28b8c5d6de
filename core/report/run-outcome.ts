import {
  CANDIDATE_VERDICTS,
  type CandidateVerdict,
  type RunOutcome,
  RunOutcomes,
  type VerdictCounts,
} from '../contracts/index.js';

/** A run's outcome (the report's, the summary's and the CLIs' exit code) from its candidates' verdicts. */

/** Verdicts of candidates that could not be judged against the SLA: what makes a run partial. */
const UNJUDGED_VERDICTS: readonly CandidateVerdict[] = [
  'quality-unknown',
  'model-errors',
  'measurement-problem',
  'failed',
  'skipped',
];

/** Counts each verdict, every verdict present (0 when none). */
export function countVerdicts(verdicts: readonly CandidateVerdict[]): VerdictCounts {
  const counts = Object.fromEntries(CANDIDATE_VERDICTS.map((verdict) => [verdict, 0])) as Record<
    CandidateVerdict,
    number
  >;
  for (const verdict of verdicts) counts[verdict] += 1;
  return counts;
}

/** The run's outcome from its candidates' verdicts. */
export function runOutcomeOf(counts: VerdictCounts): RunOutcome {
  const unjudged = UNJUDGED_VERDICTS.reduce((sum, verdict) => sum + counts[verdict], 0);
  if (counts.recommended > 0) return unjudged > 0 ? RunOutcomes.partial : RunOutcomes.recommended;
  if (counts['quality-failed'] + counts['quality-unknown'] > 0) return RunOutcomes.noCandidatePassedQuality;
  // A stalled candidate was judged against the SLA: its endpoint did not hold the load.
  return counts['missed-sla'] + counts.stalled > 0
    ? RunOutcomes.noCandidateMetSla
    : RunOutcomes.allCandidatesFailed;
}
