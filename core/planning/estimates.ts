import { LAMBDA_ARM64_USD_PER_GB_SECOND } from '../catalog/index.js';
import { COMPILATION_CONCURRENCY } from '../contracts/index.js';
import type { PlannedCandidate, RunPlan, RunInput } from '../contracts/index.js';
import { interleavesRepeats, measuringSeconds, stepPeriodMs } from '../load-test/index.js';
import { ESTIMATE_ASSUMPTIONS } from '../deployment/index.js';
import { interleavedHoldSeconds } from './load-plan-rounds.js';

export function roundUsd(value: number): number {
  return Math.round(value * 100) / 100;
}

/** What a phase after "Recommend" may cost, and the assumption the estimate states for it. */
export interface PhaseEstimate {
  readonly usd: number;
  readonly assumption: string;
}

/** The load workers' Lambda time: every step and round of every candidate, at the workers' memory. */
export function loadGeneratorUsd(input: RunInput, candidateCount: number): number {
  return (
    measuringSeconds(input.loadPlan) *
    input.loadPlan.workers *
    (candidateCount || 1) *
    ESTIMATE_ASSUMPTIONS.loadGeneratorMemoryGb *
    LAMBDA_ARM64_USD_PER_GB_SECOND
  );
}

/**
 * The run's wall-clock time with the cost's assumptions: compilation jobs their whole runtime
 * (COMPILATION_CONCURRENCY at a time), then each wave of `maxConcurrentCandidates` created, load
 * tested (every round) and deleted, the interleaved repeats and the proof after them. A user's
 * endpoint is neither created nor deleted.
 */
export function typicalRunSeconds(input: RunInput, plan: RunPlan): number {
  const { provisioningSeconds, teardownSeconds } = ESTIMATE_ASSUMPTIONS;
  const count = plan.candidates.length;
  const compilation =
    Math.ceil(plan.compilations.length / COMPILATION_CONCURRENCY) * plan.compilationMaxRuntimeSeconds;
  const life =
    (plan.existingEndpoint === undefined ? provisioningSeconds + teardownSeconds : 0) +
    measuringSeconds(plan.loadPlan);
  const waves = Math.ceil(count / Math.max(1, plan.maxConcurrentCandidates));
  // The first wave's endpoints stay up until every wave has run its repeats (`interleavedHoldSeconds`).
  const candidates = interleavesRepeats(plan.loadPlan)
    ? life + interleavedHoldSeconds(input, count, 0)
    : waves * life;
  const { prove } = plan;
  const proof =
    prove?.enabled === true && prove.skipReason === undefined
      ? (1 + (prove.corrections ?? 0)) *
        (provisioningSeconds + stepPeriodMs(plan.loadPlan) / 1000 + teardownSeconds)
      : 0;
  const ramp =
    plan.rampTest?.enabled === true
      ? (1 + (plan.rampTest.retests ?? 0)) *
        (provisioningSeconds + plan.loadPlan.warmupSeconds + plan.rampTest.seconds + teardownSeconds)
      : 0;
  return Math.round(compilation + candidates + proof + ramp);
}

/**
 * What the ramp may cost: it starts at the availability minimum and the policy adds instances as
 * the rate rises, up to a maximum known only once the candidates are measured. The estimate prices
 * the minimum of the dearest real-time candidate for the endpoint's life (creation, warm-up, ramp,
 * deletion), and says what each instance the policy adds may cost at most.
 */
export function rampEstimate(
  input: RunInput,
  candidates: readonly PlannedCandidate[],
  rampTest: RunPlan['rampTest'],
): PhaseEstimate | undefined {
  if (rampTest === undefined) return undefined;
  const usdPerHour = Math.max(0, ...candidates.map((c) => (c.kind === 'realtime' ? (c.usdPerHour ?? 0) : 0)));
  if (usdPerHour === 0) return undefined;
  const seconds =
    ESTIMATE_ASSUMPTIONS.provisioningSeconds +
    input.loadPlan.warmupSeconds +
    rampTest.seconds +
    ESTIMATE_ASSUMPTIONS.teardownSeconds;
  const perInstance = (seconds / 3600) * usdPerHour;
  const instances = input.availability.minInstances;
  const attempts = 1 + (rampTest.retests ?? 0);
  return {
    usd: perInstance * instances * attempts,
    assumption:
      `the ramp test priced at ${instances} instance(s) of the dearest candidate for ${seconds} s` +
      `${attempts > 1 ? ', and its re-test alike' : ''}; each instance its policy adds bills at most ` +
      `$${perInstance.toFixed(4)} more (the maximum is known after the measurements)`,
  };
}

/**
 * What the proof may cost: its count is known only once the candidates are measured, so the
 * estimate prices the availability minimum of the most expensive real-time candidate for an
 * endpoint's life (creation, one step, deletion), and says what each further instance adds.
 */
export function proofEstimate(
  input: RunInput,
  candidates: readonly PlannedCandidate[],
  prove: RunPlan['prove'],
): PhaseEstimate | undefined {
  if (prove === undefined || !prove.enabled || prove.skipReason !== undefined) return undefined;
  const usdPerHour = Math.max(0, ...candidates.map((c) => (c.kind === 'realtime' ? (c.usdPerHour ?? 0) : 0)));
  if (usdPerHour === 0) return undefined;
  const seconds =
    ESTIMATE_ASSUMPTIONS.provisioningSeconds +
    stepPeriodMs(input.loadPlan) / 1000 +
    ESTIMATE_ASSUMPTIONS.teardownSeconds;
  const perInstance = (seconds / 3600) * usdPerHour;
  const instances = input.availability.minInstances;
  const attempts = 1 + (prove.corrections ?? 0);
  // The correction tries at least one instance more than the first proof.
  const usd = perInstance * (instances * attempts + (attempts - 1));
  return {
    usd,
    assumption:
      `the proof at ${input.sla.targetTps ?? 0} TPS priced at ${instances} instance(s) of the dearest candidate for ` +
      `${seconds} s${attempts > 1 ? `, and its correction at ${instances + 1}` : ''}; its count is known after the ` +
      `measurements, each further instance adds $${perInstance.toFixed(4)}`,
  };
}
