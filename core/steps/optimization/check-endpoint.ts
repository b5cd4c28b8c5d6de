import {
  EndpointFailedError,
  nextPollSeconds,
  redactText,
  CandidateStatuses,
  type CheckEndpointEvent,
  type DeploymentState,
  OptimizationStates,
  type RunPlan,
} from '../../contracts/index.js';
import {
  type EndpointDescription,
  EndpointStatuses,
  type Logger,
  type ModelHost,
} from '../../ports/index.js';
import type { EndpointTimings } from '../../deployment/index.js';
import { refuseRedrive } from './redrive.js';

export interface CheckEndpointDeps extends EndpointTimings {
  readonly host: ModelHost;
  readonly logger: Logger;
}

/**
 * State "Check endpoint": one DescribeEndpoint. In service → the load workers' shared start, with
 * the instance type, current instance count and variant the endpoint really has (what the report
 * prices and whose metrics it reads); Failed → `EndpointFailedError` with SageMaker's
 * FailureReason; still creating → wait again, until the deadline. A redriven run is refused
 * (redrive.ts): the endpoint it would look at was deleted when the run stopped.
 *
 * An existing endpoint with several production variants is refused: the load would split between
 * them by weight (InvokeEndpoint without TargetVariant, SageMaker API reference), so neither the
 * cost nor the latency could be attributed to one instance type.
 */
export async function checkEndpoint(
  event: CheckEndpointEvent,
  deps: CheckEndpointDeps,
): Promise<DeploymentState> {
  refuseRedrive(event, OptimizationStates.checkEndpoint);
  const { deployment } = event;
  const endpoint = await deps.host.describeEndpoint(deployment.endpointName);
  if (endpoint === undefined) {
    throw new EndpointFailedError(`Endpoint ${deployment.endpointName} does not exist`, {
      endpointName: deployment.endpointName,
    });
  }
  if (endpoint.status === EndpointStatuses.inService) {
    const existing = event.plan.existingEndpoint;
    if (existing?.endpointName === deployment.endpointName) checkExistingEndpoint(existing, endpoint, deps);
    return {
      ...deployment,
      status: CandidateStatuses.inService,
      loadStartEpochMs: deps.nowEpochMs() + deps.loadStartDelaySeconds * 1000,
      workerIndexes: Array.from({ length: event.plan.loadPlan.workers }, (_, index) => index),
      ...(endpoint.instanceType === undefined ? {} : { instanceType: endpoint.instanceType }),
      ...(endpoint.instanceCount === undefined ? {} : { instanceCount: endpoint.instanceCount }),
      ...(endpoint.variantName === undefined ? {} : { variantName: endpoint.variantName }),
    };
  }
  if (
    endpoint.status === EndpointStatuses.failed ||
    endpoint.status === EndpointStatuses.updateRollbackFailed
  ) {
    // A container's error may quote its environment: the reason reaches the report and the logs.
    const failureReason =
      endpoint.failureReason === undefined ? undefined : redactText(endpoint.failureReason);
    throw new EndpointFailedError(
      `Endpoint ${deployment.endpointName} failed: ${failureReason ?? 'SageMaker gave no reason'}`,
      { endpointName: deployment.endpointName, failureReason },
    );
  }
  if (deps.nowEpochMs() > deployment.deadlineEpochMs) {
    throw new EndpointFailedError(
      `Endpoint ${deployment.endpointName} still ${endpoint.status} at its deadline (${new Date(deployment.deadlineEpochMs).toISOString()})`,
      { endpointName: deployment.endpointName, status: endpoint.status },
    );
  }
  return {
    ...deployment,
    status: CandidateStatuses.deploying,
    waitSeconds: nextPollSeconds(deployment.waitSeconds, deps),
  };
}

/**
 * Refuses an existing endpoint with several variants; warns when the run input's
 * `existingEndpoint.instanceType`/`instanceCount` disagree with the endpoint (the endpoint wins:
 * the report prices what was tested, and says that the input disagreed).
 */
function checkExistingEndpoint(
  existing: NonNullable<RunPlan['existingEndpoint']>,
  endpoint: EndpointDescription,
  deps: Pick<CheckEndpointDeps, 'logger'>,
): void {
  const variants = endpoint.variantNames ?? [];
  if (variants.length > 1) {
    throw new EndpointFailedError(
      `existingEndpoint.endpointName ${existing.endpointName}: got an endpoint with ${variants.length} ` +
        `production variants (${variants.join(', ')}), expected one: the load would split between them ` +
        'by weight, so no single instance type could be costed. Point existingEndpoint at an endpoint ' +
        'that serves one variant (e.g. a copy of the variant you want to measure)',
      { endpointName: existing.endpointName, variantNames: variants },
    );
  }
  const typeDiffers =
    existing.instanceType !== undefined &&
    endpoint.instanceType !== undefined &&
    existing.instanceType !== endpoint.instanceType;
  const countDiffers =
    existing.instanceCount !== undefined &&
    endpoint.instanceCount !== undefined &&
    existing.instanceCount !== endpoint.instanceCount;
  if (typeDiffers || countDiffers) {
    deps.logger.warn('existingEndpoint disagrees with the endpoint: costed as the endpoint is', {
      endpointName: existing.endpointName,
      given: { instanceType: existing.instanceType, instanceCount: existing.instanceCount },
      described: { instanceType: endpoint.instanceType, instanceCount: endpoint.instanceCount },
    });
  }
}
