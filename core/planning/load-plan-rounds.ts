import {
  interleavedRepeatRounds,
  interleavesRepeats,
  measuringSeconds,
  repeatsOf,
  stepPeriodMs,
} from '../load-test/index.js';
import type { LoadPlan, RunInput } from '../contracts/index.js';
import { ESTIMATE_ASSUMPTIONS } from '../deployment/index.js';
import { type OptimizationLimitSettings, roundsFitLimits } from './optimization-limits.js';

/**
 * A round (knee probe or repeat, load-test/rounds.ts) is one step run by one worker invocation:
 * with steps longer than an invocation's segment, a plan that asks for rounds is refused
 * (planning/input-rules.ts), and one that names none gets none (written into the plan:
 * `kneeProbes` 0, `repeats` 1).
 */
export function roundsWithinSegment(loadPlan: LoadPlan, segmentSeconds: number): LoadPlan {
  const stepSeconds = stepPeriodMs(loadPlan) / 1000;
  if (stepSeconds <= segmentSeconds) return loadPlan;
  return { ...loadPlan, kneeProbes: 0, repeats: 1 };
}

/**
 * The default rounds a plan gets are those its worst case has room for, as with load test re-runs:
 * rounds never make a plan that fits without them be refused. A plan that names `kneeProbes` or
 * `repeats` keeps them (and is refused when they do not fit); of the defaults, repeats go first,
 * then knee probes (written into the plan as 1 and 0).
 */
export function defaultRoundsWithin(loadPlan: LoadPlan, fits: (loadPlan: LoadPlan) => boolean): LoadPlan {
  const noRepeats = loadPlan.repeats === undefined ? { ...loadPlan, repeats: 1 } : loadPlan;
  const noProbes = loadPlan.kneeProbes === undefined ? { ...noRepeats, kneeProbes: 0 } : noRepeats;
  const fewer: LoadPlan[] = [loadPlan, noRepeats, noProbes];
  // None fits: the fewest, so that the refusal names what is wrong without the defaults.
  return fewer.find(fits) ?? fewer[fewer.length - 1] ?? loadPlan;
}

/**
 * `interleaveRepeats` as the run will use it: kept (with `repeats` written out, which "Repeat
 * round due?" counts against) only when there are repeats to interleave and more than one
 * candidate to interleave them with; removed otherwise, so the plan says what runs.
 */
export function interleavingOf(loadPlan: LoadPlan, candidateCount: number): LoadPlan {
  const { interleaveRepeats: _asked, ...rest } = loadPlan;
  if (!interleavesRepeats(loadPlan) || candidateCount < 2) return rest;
  return { ...rest, interleaveRepeats: true, repeats: repeatsOf(loadPlan) };
}

/** A repeat's time besides its step: "Check endpoint before repeat", the workers' start delay, "Aggregate repeat". */
const REPEAT_OVERHEAD_SECONDS = 20;

/**
 * With interleaved repeats, how much longer the candidate at `index` may be billed than its own
 * load test: kept up after it while the later waves of candidates (`maxConcurrentCandidates` at a
 * time, in order) are deployed, measured and deleted, then through the repeat rounds, each a step
 * and a check per wave. An upper bound: every later wave takes a whole candidate's life.
 */
export function interleavedHoldSeconds(input: RunInput, candidateCount: number, index: number): number {
  const rounds = interleavedRepeatRounds(input.loadPlan);
  if (rounds === 0) return 0;
  const perWave = Math.max(1, input.maxConcurrentCandidates);
  const waves = Math.ceil(candidateCount / perWave);
  const laterWaves = waves - 1 - Math.floor(index / perWave);
  const life =
    ESTIMATE_ASSUMPTIONS.provisioningSeconds +
    measuringSeconds(input.loadPlan) +
    ESTIMATE_ASSUMPTIONS.teardownSeconds;
  return laterWaves * life + waves * rounds * (stepPeriodMs(input.loadPlan) / 1000 + REPEAT_OVERHEAD_SECONDS);
}

/**
 * The load plan the run gets: no rounds where a step is longer than a segment, the default rounds
 * its worst case has room for, and `interleaveRepeats` only where it interleaves.
 */
export function loadPlanThatFits(
  input: RunInput,
  segmentSeconds: number,
  candidateCount: number,
  settings: OptimizationLimitSettings,
): LoadPlan {
  const loadPlan = defaultRoundsWithin(roundsWithinSegment(input.loadPlan, segmentSeconds), (tried) =>
    roundsFitLimits(
      {
        loadPlan: tried,
        loadSegmentSeconds: segmentSeconds,
        compilationMaxRuntimeSeconds: input.compilation.maxRuntimeSeconds,
        maxConcurrentCandidates: input.maxConcurrentCandidates,
        candidateCount,
        compilationCount: input.compilation.targets.length + input.compilation.optimizations.length,
      },
      settings,
    ),
  );
  return interleavingOf(loadPlan, input.existingEndpoint === undefined ? candidateCount : 1);
}
