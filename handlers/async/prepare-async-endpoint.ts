import { EndpointFailedError } from '../contracts/errors.js';
import { nextPollSeconds } from '../contracts/execution-limits.js';
import {
  type AsyncInferenceSpec,
  EndpointStatuses,
  type Logger,
  type ModelHost,
  type ScalingRegistry,
} from '../ports.js';
import {
  AsyncEndpointPhases,
  type AsyncEndpointState,
  type AsyncRunPlan,
  scaleInDeadline,
} from './validate-async-run.js';

/**
 * "Deploy async endpoint" and "Check async endpoint": the Wait → Check loop that brings the run's
 * endpoint to where the invocations can start.
 *
 * - `creating`: CreateModel, CreateEndpointConfig (with `AsyncInferenceConfig`: S3 output and
 *   failure paths, this stack's SNS topics, `MaxConcurrentInvocationsPerInstance`) and
 *   CreateEndpoint; once InService, autoscaling between 0 and the maximum is registered.
 * - `scaling-in` (benchmark only): waits for zero instances, so the burst measures the scale-out
 *   from zero. AWS scales in after ~15 minutes without backlog; past the deadline the burst starts
 *   anyway and the summary says how many instances were running.
 */

/** Scale-in waits after the last request: long enough not to stop between two bursts of a batch. */
const SCALE_IN_COOLDOWN_SECONDS = 600;
/** Scale-out reacts within a minute: a backlog should not wait for a long cooldown. */
const SCALE_OUT_COOLDOWN_SECONDS = 60;

export interface AsyncEndpointTimings {
  readonly pollSeconds: number;
  readonly maxPollSeconds: number;
  readonly nowEpochMs: () => number;
}

export interface PrepareAsyncEndpointDeps extends AsyncEndpointTimings {
  readonly host: ModelHost;
  readonly scaling: ScalingRegistry;
  /** Where results, failures and notifications go (stack resources). */
  readonly output: {
    readonly successTopicArn: string;
    readonly errorTopicArn: string;
    readonly kmsKeyId?: string;
  };
  readonly logger: Logger;
}

export interface PrepareAsyncEndpointEvent {
  readonly plan: AsyncRunPlan;
  readonly endpointState: AsyncEndpointState;
}

/** State "Deploy async endpoint": creates the three resources, named after the run and tagged. */
export async function deployAsyncEndpoint(
  event: PrepareAsyncEndpointEvent,
  deps: PrepareAsyncEndpointDeps,
): Promise<AsyncEndpointState> {
  const { plan } = event;
  const { endpoint } = plan;
  const spec = endpoint.deploy;
  if (spec === undefined || endpoint.modelName === undefined || endpoint.endpointConfigName === undefined) {
    throw new TypeError(`deployAsyncEndpoint: endpoint ${endpoint.endpointName} is not one the run deploys`);
  }
  await deps.host.createModel({
    modelName: endpoint.modelName,
    image: spec.image,
    modelDataUrl: spec.modelDataUrl,
    environment: spec.environment,
    tags: plan.tags,
  });
  await deps.host.createEndpointConfig({
    endpointConfigName: endpoint.endpointConfigName,
    variant: {
      variantName: endpoint.variantName,
      modelName: endpoint.modelName,
      instanceType: spec.instanceType,
      // SageMaker creates async endpoints with at least one instance; autoscaling takes it to zero.
      initialInstanceCount: 1,
    },
    asyncInference: asyncInferenceSpec(plan, deps.output),
    tags: plan.tags,
  });
  await deps.host.createEndpoint({
    endpointName: endpoint.endpointName,
    endpointConfigName: endpoint.endpointConfigName,
    tags: plan.tags,
  });
  deps.logger.info('Async endpoint creating', {
    runId: plan.runId,
    endpointName: endpoint.endpointName,
    instanceType: spec.instanceType,
    image: spec.image,
  });
  return event.endpointState;
}

/** Results under the run's prefix, so the run's artifacts stay together (and its grants scoped). */
export function asyncInferenceSpec(
  plan: AsyncRunPlan,
  output: PrepareAsyncEndpointDeps['output'],
): AsyncInferenceSpec {
  const maxConcurrent = plan.endpoint.deploy?.maxConcurrentInvocationsPerInstance;
  return {
    s3OutputPath: `${plan.runPrefixUri}async/output/`,
    s3FailurePath: `${plan.runPrefixUri}async/failures/`,
    ...(output.kmsKeyId === undefined ? {} : { kmsKeyId: output.kmsKeyId }),
    successTopicArn: output.successTopicArn,
    errorTopicArn: output.errorTopicArn,
    ...(maxConcurrent === undefined ? {} : { maxConcurrentInvocationsPerInstance: maxConcurrent }),
  };
}

/**
 * State "Check async endpoint": one DescribeEndpoint. Creating → InService registers autoscaling
 * and moves on (to `scaling-in` for a benchmark); `scaling-in` ends at zero instances or at its
 * deadline. A failed or vanished endpoint fails the run (clean-up follows).
 */
export async function checkAsyncEndpoint(
  event: PrepareAsyncEndpointEvent,
  deps: PrepareAsyncEndpointDeps,
): Promise<AsyncEndpointState> {
  const { plan, endpointState: state } = event;
  const { endpointName } = plan.endpoint;
  const endpoint = await deps.host.describeEndpoint(endpointName);
  if (endpoint === undefined) {
    throw new EndpointFailedError(`Endpoint ${endpointName} no longer exists`, { endpointName });
  }
  if (
    endpoint.status === EndpointStatuses.failed ||
    endpoint.status === EndpointStatuses.updateRollbackFailed
  ) {
    throw new EndpointFailedError(
      `Endpoint ${endpointName} failed: ${endpoint.failureReason ?? 'SageMaker gave no reason'}`,
      { endpointName, failureReason: endpoint.failureReason },
    );
  }
  const nowMs = deps.nowEpochMs();
  const waitAgain = (): AsyncEndpointState => ({
    ...state,
    waitSeconds: nextPollSeconds(state.waitSeconds, deps),
  });

  if (state.phase === AsyncEndpointPhases.creating) {
    if (endpoint.status !== EndpointStatuses.inService) {
      if (nowMs > state.deadlineEpochMs) {
        throw new EndpointFailedError(
          `Endpoint ${endpointName} still ${endpoint.status} at its deadline (${new Date(state.deadlineEpochMs).toISOString()})`,
          { endpointName, status: endpoint.status },
        );
      }
      return waitAgain();
    }
    await registerScaling(plan, deps);
    if (plan.benchmark === undefined) {
      return { phase: AsyncEndpointPhases.ready, waitSeconds: 0, deadlineEpochMs: nowMs };
    }
    return {
      phase: AsyncEndpointPhases.scalingIn,
      waitSeconds: deps.pollSeconds,
      deadlineEpochMs: scaleInDeadline(nowMs),
    };
  }

  // scaling-in: the burst should start from zero instances.
  const instances = endpoint.currentInstanceCount;
  if (instances === 0) {
    deps.logger.info('Endpoint at zero instances: the burst starts', { endpointName });
    return { phase: AsyncEndpointPhases.ready, waitSeconds: 0, deadlineEpochMs: nowMs, instancesAtStart: 0 };
  }
  if (nowMs > state.deadlineEpochMs) {
    const note = `the endpoint still had ${instances ?? 'an unknown number of'} instance(s) at the scale-in deadline: the scale-out delay from zero was not measured`;
    deps.logger.warn('Burst starts without scaling in to zero', { endpointName, instances });
    return {
      phase: AsyncEndpointPhases.ready,
      waitSeconds: 0,
      deadlineEpochMs: nowMs,
      ...(instances === undefined ? {} : { instancesAtStart: instances }),
      note,
    };
  }
  return waitAgain();
}

async function registerScaling(plan: AsyncRunPlan, deps: PrepareAsyncEndpointDeps): Promise<void> {
  const spec = plan.endpoint.deploy;
  if (spec === undefined) return;
  await deps.scaling.configureAsyncScaling(plan.endpoint.endpointName, plan.endpoint.variantName, {
    minInstanceCount: 0,
    maxInstanceCount: spec.maxInstanceCount,
    targetBacklogPerInstance: spec.targetBacklogPerInstance,
    scaleInCooldownSeconds: SCALE_IN_COOLDOWN_SECONDS,
    scaleOutCooldownSeconds: SCALE_OUT_COOLDOWN_SECONDS,
  });
  deps.logger.info('Async endpoint autoscaling registered', {
    endpointName: plan.endpoint.endpointName,
    minInstanceCount: 0,
    maxInstanceCount: spec.maxInstanceCount,
  });
}
