import type { CandidateOutcome, RunPlan } from '../contracts/index.js';
import { QUALITY_VERDICTS, qualityAllowsRecommendation } from '../contracts/index.js';

/**
 * Why a candidate that met the SLA is not ranked, by the run's output-quality guard: its answers
 * broke the rule ("quality-failed"), or the guard could not judge them ("quality-unknown") and the
 * run input does not allow that (`quality.allowUnknown`). Undefined: the guard lets it be ranked
 * (or the run has none). An outcome without a verdict under a guard ("Judge output quality"
 * failed) is unjudged.
 */
export function qualityExclusion(
  plan: Pick<RunPlan, 'quality'>,
  outcome: CandidateOutcome | undefined,
): { readonly verdict: 'quality-failed' | 'quality-unknown'; readonly reason: string } | undefined {
  const { quality } = plan;
  if (quality === undefined) return undefined;
  const judged = outcome?.quality;
  const status = judged?.verdict ?? QUALITY_VERDICTS.unknown;
  if (qualityAllowsRecommendation(status, quality)) return undefined;
  const against = `the reference ${quality.referenceCandidateId}`;
  if (status === QUALITY_VERDICTS.qualityFailed) {
    return {
      verdict: 'quality-failed',
      reason: `met the SLA, but its answers broke the output-quality rule (${quality.rule.kind}) against ${against}: ${judged?.reason ?? 'no reason given'}`,
    };
  }
  return {
    verdict: 'quality-unknown',
    reason:
      `met the SLA, but its answers could not be judged against ${against} ` +
      `(${judged?.reason ?? 'no verdict was given: "Judge output quality" did not finish'}); ` +
      'not recommended unless quality.allowUnknown is true',
  };
}
