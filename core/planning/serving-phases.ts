import { DEFAULT_RAMP_SECONDS, RAMP_SECONDS_TO_SCALE_ON_AWS } from '../contracts/index.js';
import type { RunPlan, RunInput } from '../contracts/index.js';
import { proofSkipReason, proofWorkers, rampWorkers } from '../serving/index.js';
import { rampSecondsThatFit } from './input-rules.js';

/**
 * The plan's `prove` (with a target only): on unless the input turns it off, its workers sized for
 * the target rate as the planner sizes any open-model step (worker-ceiling.ts), and why it cannot
 * run when its one step does not fit one worker invocation.
 */
export function provePlanOf(input: RunInput, segmentSeconds: number): RunPlan['prove'] {
  const targetTps = input.sla.targetTps;
  if (targetTps === undefined) return undefined;
  const skipReason = input.prove.enabled ? proofSkipReason(input.loadPlan, segmentSeconds) : undefined;
  return {
    enabled: input.prove.enabled,
    workers: proofWorkers(input.loadPlan, targetTps),
    ...(input.prove.enabled && skipReason === undefined ? { corrections: 1 } : {}),
    ...(skipReason === undefined ? {} : { skipReason }),
  };
}

/**
 * The plan's `rampTest` (with a target, and only when asked for: it is off by default), its
 * workers sized for the peak it ramps to, as the proof's are for the target.
 */
export function rampTestPlanOf(input: RunInput, segmentSeconds: number): RunPlan['rampTest'] {
  const targetTps = input.sla.targetTps;
  if (targetTps === undefined || !input.rampTest.enabled) return undefined;
  return {
    enabled: true,
    seconds: rampSecondsOf(input, segmentSeconds),
    workers: rampWorkers(input.loadPlan, input.scaling.peakTps ?? targetTps),
    retests: 1,
  };
}

/**
 * The ramp runs in one load worker invocation: between two invocations no load is offered (the
 * workers drain, the aggregate runs, the next start is set), which would pause the rising rate the
 * policy follows (its alarm counts consecutive minutes) and shift the activities' clock times
 * against the timeline's, which counts load-test time only. So the warm-up and ramp must fit one
 * invocation; absent, `seconds` is the longest that does, at most DEFAULT_RAMP_SECONDS.
 */
function rampSecondsOf(input: RunInput, segmentSeconds: number): number {
  const asked = input.rampTest.seconds;
  // A longer one is refused before planning (planning/input-rules.ts).
  return asked ?? Math.min(DEFAULT_RAMP_SECONDS, rampSecondsThatFit(input.loadPlan, segmentSeconds));
}

/**
 * On AWS, target tracking scales out after its alarm has seen three one-minute periods above the
 * target, and the new instance then starts and loads the model: a shorter ramp most likely ends
 * before any scale-out, and measures the minimum alone. Said, not refused (a user may want that).
 */
export function shortRampWarning(rampTest: RunPlan['rampTest']): string | undefined {
  if (rampTest === undefined || rampTest.seconds >= RAMP_SECONDS_TO_SCALE_ON_AWS) return undefined;
  return (
    `rampTest.seconds is ${rampTest.seconds}: on SageMaker a scale-out needs its metric above the target for 3 minutes, ` +
    `then an instance's start and model load, so a ramp under ${RAMP_SECONDS_TO_SCALE_ON_AWS} s most likely ends before any scale-out`
  );
}
