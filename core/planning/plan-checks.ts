import {
  BudgetExceededError,
  InvalidRunInputError,
  isValidRunId,
  describeGiven,
} from '../contracts/index.js';
import type { RunPlan, RunInput } from '../contracts/index.js';
import { unpricedCandidateIssues } from './candidates.js';
import { proofEstimate, rampEstimate } from './estimates.js';
import type { PriceBook } from './price-source.js';
import { optimizationInputIssues } from './input-rules.js';
import { modelFitCheck } from './model-fit-check.js';
import { expandShortlist, type ShortlistOutcome } from './shortlist.js';
import { capIssues } from './object-checks.js';
import { optimizationLimitIssues, type OptimizationLimitSettings } from './optimization-limits.js';
import type { PlanParts } from './run-plan.js';

/** The run id names every resource the run creates: 1–80 letters, digits, "-" or "_". */
export function checkRunId(runId: string): void {
  if (!isValidRunId(runId)) {
    throw new InvalidRunInputError([
      { field: 'runId', given: describeGiven(runId), expected: '1–80 letters, digits, "-" or "_"' },
    ]);
  }
}

/**
 * A shortlist request becomes the candidates before any check reads them (the plan keeps the
 * planner's choice beside them); refused when no type qualifies, with every reason.
 */
export function checkShortlist(
  input: RunInput,
  servingRegion: string | undefined,
): Omit<ShortlistOutcome, 'issues'> {
  const shortlisted = expandShortlist(input, servingRegion === undefined ? {} : { servingRegion });
  if (shortlisted.issues.length > 0) throw new InvalidRunInputError(shortlisted.issues);
  return shortlisted;
}

/** The rules that need no AWS read, before any: the run API's start-run runs the same ones. */
export function checkInputRules(
  input: RunInput,
  servingRegion: string | undefined,
  loadSegmentSeconds: number,
): void {
  const issues = optimizationInputIssues(input, {
    ...(servingRegion === undefined ? {} : { servingRegion }),
    loadSegmentSeconds,
  });
  if (issues.length > 0) throw new InvalidRunInputError(issues);
}

/**
 * A candidate whose accelerators (or host) cannot hold the model is refused, naming the memory
 * needed and available; returns the warnings of fits that could not be checked and why.
 */
export function checkModelFit(input: RunInput, artifactBytes: number | undefined): string[] {
  const fit = modelFitCheck(input, artifactBytes === undefined ? {} : { artifactBytes });
  if (fit.issues.length > 0) throw new InvalidRunInputError(capIssues(fit.issues));
  return fit.warnings;
}

/**
 * A candidate is priced by the run input, else live on AWS, else by the recorded table: one that
 * none prices is refused here, once the prices are read, before anything is created.
 */
export function checkCandidatePrices(input: RunInput, prices: PriceBook): void {
  const issues = unpricedCandidateIssues(input, prices);
  if (issues.length > 0) throw new InvalidRunInputError(capIssues(issues));
}

/** Neither a state over 256 KB nor a full history nor a run past its timeout can be caught: refused here. */
export function checkExecutionLimits(plan: RunPlan, settings: OptimizationLimitSettings): void {
  const issues = optimizationLimitIssues(plan, settings);
  if (issues.length > 0) throw new InvalidRunInputError(issues);
}

/**
 * A plan whose estimate passes maxCostUsd is refused with its breakdown. The phases after
 * "Recommend" are in the total: named with how to drop them, or the breakdown does not add up
 * and the fix may not be the one that helps.
 */
export function checkCost(parts: PlanParts, plan: RunPlan): void {
  const { input, candidates } = parts;
  const totalUsd = plan.estimate.totalUsd;
  if (input.maxCostUsd === undefined || totalUsd <= input.maxCostUsd) return;
  const breakdown = candidates.map((c) => `${c.id} $${c.estimatedCostUsd.toFixed(2)}`).join(', ');
  const proof = proofEstimate(input, candidates, plan.prove);
  const ramp = rampEstimate(input, candidates, plan.rampTest);
  const phases = [
    ...(proof === undefined ? [] : [`; proof $${proof.usd.toFixed(2)}`]),
    ...(ramp === undefined ? [] : [`; ramp test $${ramp.usd.toFixed(2)}`]),
  ].join('');
  const phaseFixes = [
    ...(proof === undefined ? [] : [', or turn the proof off (prove.enabled: false)']),
    ...(ramp === undefined
      ? []
      : [', or shorten rampTest.seconds or turn the ramp test off (rampTest.enabled: false)']),
  ].join('');
  throw new BudgetExceededError(
    `The run's estimated cost $${totalUsd.toFixed(2)} exceeds maxCostUsd $${input.maxCostUsd.toFixed(2)} ` +
      `(${breakdown}; load generator $${parts.loadGeneratorUsd.toFixed(2)}${phases}). Raise maxCostUsd, or shorten the load plan ` +
      `or remove candidates${phaseFixes}. Nothing was created.`,
    { estimatedCostUsd: totalUsd, maxCostUsd: input.maxCostUsd },
  );
}
