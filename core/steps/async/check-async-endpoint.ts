import {
  AsyncEndpointPhases,
  type AsyncEndpointState,
  type AsyncRunPlan,
  type PrepareAsyncEndpointEvent,
  EndpointFailedError,
  nextPollSeconds,
} from '../../contracts/index.js';
import { EndpointStatuses } from '../../ports/index.js';
import { type PrepareAsyncEndpointDeps, scaleInDeadline } from '../../async/index.js';

/**
 * "Check async endpoint", the Wait → Check loop that brings the run's endpoint to where the
 * invocations can start (deploy-async-endpoint.ts creates it).
 *
 * - `creating`: once InService, autoscaling between 0 and the maximum is registered.
 * - `scaling-in` (benchmark only): waits for zero instances, so the burst measures the scale-out
 *   from zero. AWS scales in after ~15 minutes without backlog; past the deadline the burst starts
 *   anyway and the summary says how many instances were running.
 */

/** Scale-in waits after the last request: long enough not to stop between two bursts of a batch. */
const SCALE_IN_COOLDOWN_SECONDS = 600;
/** Scale-out reacts within a minute: a backlog should not wait for a long cooldown. */
const SCALE_OUT_COOLDOWN_SECONDS = 60;

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
      // The count the invocations start with: the report's instance line begins there.
      const instancesAtStart = endpoint.currentInstanceCount;
      return {
        phase: AsyncEndpointPhases.ready,
        waitSeconds: 0,
        deadlineEpochMs: nowMs,
        ...(instancesAtStart === undefined ? {} : { instancesAtStart }),
      };
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
