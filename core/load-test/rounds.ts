import { loadTestSeconds, stepPeriodMs } from './plan.js';
import type { LoadTestResult, MeasuredSpread, SpreadFigures, StepResult } from './results.js';
import { describeLoad } from './sla.js';
import type { LoadRound, LoadPlan } from '../contracts/index.js';

/**
 * Rounds (contracts/load-round.ts): what decides them, and how their figures settle a candidate's
 * sustainable load.
 */

/** Knee probes when the plan names none: three halvings narrow a step's gap to an eighth. */
export const DEFAULT_KNEE_PROBES = 3;
/** Measurements of the sustainable load when the plan names none (the original included). */
export const DEFAULT_REPEATS = 2;
/** The local CLI's default (local/cli/local-input.ts): local runs are cheap, and noisier. */
export const LOCAL_DEFAULT_REPEATS = 3;

type RoundSettings = Pick<LoadPlan, 'kneeProbes' | 'repeats' | 'maxTotalRequests' | 'ramp'>;

/**
 * Whether the plan's repeats run interleaved across candidates: every candidate's stepped test
 * and knee probes first (its endpoint kept), then one repeat of each candidate per round ("Repeat
 * each candidate", workflows/optimization-workflow.ts), so that drift over the run's minutes
 * reaches every candidate's repeats alike. Only when asked (`interleaveRepeats`, which "Validate
 * and plan" keeps only when it can run) and there are repeats to interleave.
 */
export function interleavesRepeats(plan: RoundSettings & Pick<LoadPlan, 'interleaveRepeats'>): boolean {
  return plan.interleaveRepeats === true && repeatsOf(plan) > 1;
}

/** Interleaved rounds after every candidate's own test: one per repeat beyond the original. */
export function interleavedRepeatRounds(plan: RoundSettings & Pick<LoadPlan, 'interleaveRepeats'>): number {
  return interleavesRepeats(plan) ? repeatsOf(plan) - 1 : 0;
}

/**
 * The plan's knee probes. A plan with `maxTotalRequests` set a budget for its whole test: it gets
 * rounds only when it asks for them (each round then has that allowance of its own).
 */
export function kneeProbesOf(plan: RoundSettings): number {
  // A ramp is measured once, as it is (contracts/load-plan.ts refuses probes and repeats with one).
  if (plan.ramp !== undefined) return 0;
  return plan.kneeProbes ?? (plan.maxTotalRequests === undefined ? DEFAULT_KNEE_PROBES : 0);
}

/** The plan's measurements of the sustainable load; as `kneeProbesOf` with `maxTotalRequests`. */
export function repeatsOf(plan: RoundSettings): number {
  if (plan.ramp !== undefined) return 1;
  return plan.repeats ?? (plan.maxTotalRequests === undefined ? DEFAULT_REPEATS : 1);
}

/** Rounds one candidate may run in the worst case: every probe, every repeat. */
export function worstCaseRounds(plan: RoundSettings): number {
  return kneeProbesOf(plan) + repeatsOf(plan) - 1;
}

/**
 * Rounds a candidate runs within its own load test ("Run next load round") in the worst case:
 * every probe, and the repeats unless they are interleaved.
 */
export function worstCaseOwnRounds(plan: RoundSettings & Pick<LoadPlan, 'interleaveRepeats'>): number {
  return worstCaseRounds(plan) - interleavedRepeatRounds(plan);
}

/** Schedule time every round of one candidate takes in the worst case (warm-up and window each). */
export function worstCaseRoundSeconds(plan: LoadPlan): number {
  return (worstCaseRounds(plan) * stepPeriodMs(plan)) / 1000;
}

/** One candidate's load test at its longest: every step, every round. */
export function measuringSeconds(plan: LoadPlan): number {
  return loadTestSeconds(plan) + worstCaseRoundSeconds(plan);
}

/**
 * The plan a round's workers run: one step at the round's load, with the plan's warm-up and
 * window; no extension and no plateau stop (one step has nothing to compare with). The plan's
 * `maxTotalSeconds` (at least one step, by its schema), `maxRequestsPerStep` and
 * `maxTotalRequests` bound each round as they bound the stepped test.
 */
export function roundPlan(plan: LoadPlan, load: number): LoadPlan {
  const { extendUntilSaturated: _extend, maxLoad: _maxLoad, ...rest } = plan;
  return {
    ...rest,
    steps: [load],
    stopAtPlateau: false,
  };
}

/**
 * The bracket the knee lies in: the last load that met the SLA and the lowest that breached it,
 * from the stepped plan (the step before the first breach, the breach) narrowed by the probes so
 * far. None when the stepping did not end on an SLA breach (a plateau, a deadline, every step met
 * it) or the first step already breached it.
 */
export function kneeBracket(result: LoadTestResult): { readonly pass: number; readonly fail: number } | null {
  if (result.stoppedBecause !== 'sla-breached') return null;
  const failIndex = result.steps.findIndex((step) => !step.meetsSla);
  const failStep = result.steps[failIndex];
  const passStep = result.steps[failIndex - 1];
  if (failStep === undefined || passStep === undefined) return null;
  let pass = passStep.load;
  let fail = failStep.load;
  for (const probe of result.probes ?? []) {
    if (probe.load <= pass || probe.load >= fail) continue;
    if (probe.meetsSla) pass = probe.load;
    else fail = probe.load;
  }
  return { pass, fail };
}

/**
 * The next knee probe's load: halfway between the bracket's ends (closed model: the whole number
 * below, strictly between them; open: to a thousandth of a request/s); null when the plan's
 * probes are spent, there is no bracket, or no load is left strictly between.
 */
export function nextKneeLoad(result: LoadTestResult, plan: LoadPlan): number | null {
  if ((result.probes?.length ?? 0) >= kneeProbesOf(plan)) return null;
  const bracket = kneeBracket(result);
  if (bracket === null) return null;
  const middle = (bracket.pass + bracket.fail) / 2;
  const load = plan.model === 'closed' ? Math.floor(middle) : Math.round(middle * 1000) / 1000;
  return load > bracket.pass && load < bracket.fail ? load : null;
}

/**
 * The sustainable measurement before repeats, as `pickSustainable` picks it (sla.ts) over the
 * steps before the first breach and the probes that met the SLA (all below the breach): the best
 * TPS, ties to the lower load.
 */
export function sustainableMeasurement(result: LoadTestResult): StepResult | null {
  const firstBreach = result.steps.findIndex((step) => !step.meetsSla);
  const candidates = [
    ...(firstBreach === -1 ? result.steps : result.steps.slice(0, firstBreach)),
    ...(result.probes ?? []).filter((probe) => probe.meetsSla),
  ];
  let best: StepResult | null = null;
  for (const step of candidates) {
    if (best === null || step.tps > best.tps || (step.tps === best.tps && step.load < best.load)) {
      best = step;
    }
  }
  return best;
}

/**
 * The first measurement in which the endpoint stalled (stall.ts), in the order run: steps, knee
 * probes, repeats; with what it was ("step 3 (2 in flight)", "knee probe 1 (3 in flight)").
 */
export function stalledMeasurement(
  result: Pick<LoadTestResult, 'model' | 'steps' | 'probes' | 'repeats'>,
): { readonly step: StepResult; readonly where: string } | undefined {
  const named = [
    ...result.steps.map((step, index) => ({ step, what: `step ${index + 1}` })),
    ...(result.probes ?? []).map((step, index) => ({ step, what: `knee probe ${index + 1}` })),
    ...(result.repeats ?? []).map((step, index) => ({ step, what: `repeat ${index + 1}` })),
  ];
  const found = named.find(({ step }) => step.stall !== undefined);
  return found === undefined
    ? undefined
    : { step: found.step, where: `${found.what} (${describeLoad(found.step.load, result.model)})` };
}

/**
 * The round to run after the result so far: knee probes first, then repeats; null when done. None
 * after a load test that was aborted or spent its `maxTotalRequests`, or once the endpoint stalled. With interleaved repeats,
 * the candidate's own rounds are its knee probes (`ownRound`), and its repeats wait for the
 * interleaved rounds (`pendingRepeat`).
 */
export function nextRound(result: LoadTestResult, plan: LoadPlan): LoadRound | null {
  const index = (result.probes?.length ?? 0) + (result.repeats?.length ?? 0);
  if (result.roundsNote !== undefined) return null;
  if (result.stoppedBecause === 'aborted' || result.stoppedBecause === 'request-cap') return null;
  // A stalled endpoint hung rather than saturated: no knee to find, and a round would wait on it.
  if (stalledMeasurement(result) !== undefined) return null;
  if ((result.repeats?.length ?? 0) === 0) {
    const knee = nextKneeLoad(result, plan);
    if (knee !== null) return { index, kind: 'knee', load: knee };
  }
  const sustainable = sustainableMeasurement(result);
  if (sustainable === null || (result.repeats?.length ?? 0) >= repeatsOf(plan) - 1) return null;
  return { index, kind: 'repeat', load: sustainable.load };
}

/** The next round the candidate runs within its own load test: `nextRound` less interleaved repeats. */
export function ownRound(result: LoadTestResult, plan: LoadPlan): LoadRound | null {
  return nextRound(result, interleavesRepeats(plan) ? { ...plan, repeats: 1 } : plan);
}

/** With interleaved repeats, the repeat the candidate's next interleaved round runs, once its own rounds are over. */
export function pendingRepeat(result: LoadTestResult, plan: LoadPlan): LoadRound | null {
  if (!interleavesRepeats(plan) || ownRound(result, plan) !== null) return null;
  const round = nextRound(result, plan);
  return round?.kind === 'repeat' ? round : null;
}

function median(sorted: readonly number[]): number {
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? 0;
  if (sorted.length % 2 === 1) return upper;
  return Math.round((((sorted[middle - 1] ?? upper) + upper) / 2) * 1000) / 1000;
}

function spreadOf(values: readonly number[]): SpreadFigures {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0] ?? 0, median: median(sorted), max: sorted[sorted.length - 1] ?? 0 };
}

/**
 * The result with its sustainable figures settled over steps, probes and repeats: the best
 * measurement (`sustainableMeasurement`); with repeats, its TPS becomes the median of all the
 * measurements at that load (the original and the repeats) and `spread` gives their range and
 * how many met the SLA.
 */
export function settleRounds(result: LoadTestResult, targetTps: number | undefined): LoadTestResult {
  const best = sustainableMeasurement(result);
  const repeats = result.repeats ?? [];
  const { spread: _old, ...rest } = result;
  if (best === null) {
    return {
      ...rest,
      sustainableTps: null,
      sustainableStep: null,
      meetsTargetTps: meetsTarget(null, targetTps),
    };
  }
  const measured = [best, ...repeats.filter((repeat) => repeat.load === best.load)];
  const spread: MeasuredSpread | undefined =
    measured.length > 1
      ? {
          n: measured.length,
          metSla: measured.filter((step) => step.meetsSla).length,
          tps: spreadOf(measured.map((step) => step.tps)),
          p95Ms: spreadOf(measured.map((step) => step.latencyMs.p95)),
        }
      : undefined;
  const sustainableTps = spread?.tps.median ?? best.tps;
  return {
    ...rest,
    sustainableTps,
    sustainableStep: best.load,
    meetsTargetTps: meetsTarget(sustainableTps, targetTps),
    ...(spread === undefined ? {} : { spread }),
  };
}

function meetsTarget(tps: number | null, targetTps: number | undefined): boolean | null {
  return targetTps === undefined ? null : tps !== null && tps >= targetTps;
}
