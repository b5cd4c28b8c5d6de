import {
  type DeploymentState,
  OptimizationStates,
  type RampScalingEvent,
  VARIANT_NAME,
} from '../../contracts/index.js';
import type { Logger, RealtimeScalingApplier, ScalingRegistry } from '../../ports/index.js';
import { refuseRedrive } from './redrive.js';

/**
 * States "Apply ramp scaling policy" and "Deregister ramp scaling" (and "Deregister failed ramp
 * scaling"): the ramp's endpoint gets the report's two requests as they are (aimed at it,
 * serving/ramp-test.ts `scalingRequestsFor`), and loses them before it is deleted, on every path.
 */
export interface RampScalingDeps {
  readonly applier: RealtimeScalingApplier;
  readonly registry: ScalingRegistry;
  readonly logger: Logger;
  readonly nowEpochMs: () => number;
  /** As "Check endpoint" leaves the workers (LOAD_START_DELAY_SECONDS). */
  readonly loadStartDelaySeconds: number;
}

/** After "apply": the deployment with a fresh shared start. After "deregister": whether one was. */
export type RampScalingResult = DeploymentState | { readonly deregistered: boolean };

/**
 * Apply: RegisterScalableTarget then PutScalingPolicy (the applier's order), then a new shared start
 * for the workers: the one "Check ramp endpoint" set has passed while the policy was attached.
 * Deregister: DeregisterScalableTarget, which also deletes the target's policies (Application Auto
 * Scaling does); a variant never registered (the ramp failed before "apply") is not an error.
 */
export async function rampScaling(
  event: RampScalingEvent,
  deps: RampScalingDeps,
): Promise<RampScalingResult> {
  if (event.action === 'deregister') {
    const deregistered = await deps.registry.deregisterEndpointVariant(event.endpointName, VARIANT_NAME);
    deps.logger.info('Ramp scaling deregistered', { endpointName: event.endpointName, deregistered });
    return { deregistered };
  }
  refuseRedrive(event, OptimizationStates.applyRampScaling);
  await deps.applier.applyRealtimeScaling(event.scaling);
  const { registerScalableTarget: target, putScalingPolicy: policy } = event.scaling;
  deps.logger.info('Ramp scaling policy applied', {
    resourceId: target.ResourceId,
    minCapacity: target.MinCapacity,
    maxCapacity: target.MaxCapacity,
    targetValue: policy.TargetTrackingScalingPolicyConfiguration.TargetValue,
  });
  return { ...event.deployment, loadStartEpochMs: deps.nowEpochMs() + deps.loadStartDelaySeconds * 1000 };
}
