/**
 * What other rooms import from core/serving/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export type { InstanceShare, InstanceSpread } from './instance-spread.js';
export { imbalanceOf, instanceSpreadText } from './instance-spread.js';
export type { ServeTargetProof } from './prove-target.js';
export {
  correctedInstances,
  correctedRequest,
  judgeProof,
  proofDecision,
  proofSkipReason,
  proofWorkers,
} from './prove-target.js';
export type { ServeTargetRamp } from './ramp-test.js';
export { rampDecision, rampWorkers, retestRequest } from './ramp-test.js';
export type { InstanceCountPoint, RampInput, RampOutcome, RampScaleOut } from './ramp.js';
export { brokenTimeText, rampOutcome } from './ramp.js';
export type { ScalingPolicy } from './scaling-policy.js';
export type { ServeTarget } from './serve-target.js';
export { candidateAtTargetOf, serveTargetSection } from './serve-target.js';
export type { CandidateAtTarget } from './target-sizing.js';
export { costAtTargetKey } from './target-sizing.js';
