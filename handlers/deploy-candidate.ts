import { resolveServingImage } from './catalog/images.js';
import { EndpointFailedError } from './contracts/errors.js';
import { TAG_KEYS } from './contracts/names.js';
import {
  CandidateStatuses,
  CompilationOutcomes,
  type CompilationState,
  type DeploymentState,
} from './contracts/workflow-state.js';
import { type EndpointDescription, EndpointStatuses, type Logger, type ModelHost } from './ports.js';
import { nextPollSeconds } from './contracts/execution-limits.js';
import type { PackagedModel } from './package-model.js';
import { failureReasonOf } from './report/build-report.js';
import type { PlannedCandidate, RunPlan } from './validate-and-plan.js';

/** SageMaker's default variant name, used for every candidate. */
export const VARIANT_NAME = 'AllTraffic';

/**
 * Creating an endpoint takes minutes (image pull, model download, health check); SageMaker gives
 * up itself after its own timeouts, this deadline only bounds our Wait → Check loop.
 */
export const ENDPOINT_DEADLINE_SECONDS = 45 * 60;

export interface EndpointTimings {
  /** First wait before DescribeEndpoint; each later wait doubles, up to maxPollSeconds. */
  readonly pollSeconds: number;
  readonly maxPollSeconds: number;
  readonly nowEpochMs: () => number;
  /** Delay between "in service" and the shared start of the load workers (they start apart). */
  readonly loadStartDelaySeconds: number;
}

export interface DeployCandidateEvent {
  readonly plan: RunPlan;
  readonly candidate: PlannedCandidate;
  readonly packagedModel: PackagedModel;
  readonly compilations: readonly CompilationState[];
}

export interface DeployDeps extends EndpointTimings {
  readonly host: ModelHost;
  readonly region: string;
  readonly logger: Logger;
}

/**
 * State "Deploy candidate": CreateModel, CreateEndpointConfig and CreateEndpoint, all named after
 * the run and tagged with it. A candidate whose compiled artifact failed to build is skipped with
 * the reason; an existing endpoint is only looked at.
 */
export async function deployCandidate(
  event: DeployCandidateEvent,
  deps: DeployDeps,
): Promise<DeploymentState> {
  const { candidate } = event;
  const pending = {
    candidateId: candidate.id,
    endpointName: candidate.endpointName,
    status: CandidateStatuses.deploying,
    waitSeconds: deps.pollSeconds,
    deadlineEpochMs: deps.nowEpochMs() + ENDPOINT_DEADLINE_SECONDS * 1000,
  } as const;
  if (candidate.kind === 'existing') return pending;

  const model = event.plan.model;
  const modelDataUrl = event.packagedModel.modelDataUrl;
  if (model === undefined || modelDataUrl === undefined) {
    throw new EndpointFailedError(`Candidate ${candidate.id} has no model to deploy`);
  }
  let artifactUri = modelDataUrl;
  let compilationImage: string | undefined;
  if (candidate.compiledFor !== undefined) {
    const compilation = event.compilations.find((c) => c.target === candidate.compiledFor);
    if (compilation?.status !== CompilationOutcomes.completed || compilation.artifactUri === undefined) {
      const why =
        compilation?.failureReason ?? (compilation?.error ? failureReasonOf(compilation.error) : 'no result');
      const skipReason = `compilation for ${candidate.compiledFor} failed: ${why}`;
      deps.logger.warn('Candidate skipped', { candidateId: candidate.id, skipReason });
      return { ...pending, status: CandidateStatuses.skipped, skipReason };
    }
    artifactUri = compilation.artifactUri;
    compilationImage = compilation.inferenceImage;
  }
  // model.image serves the uncompiled artifact only; a compiled one runs on model.compiledImage, the
  // image its compilation job named, or the table's Neo image (images.ts), or is refused with why.
  const { imageUri: image, source: imageSource } = resolveServingImage({
    framework: model.framework,
    frameworkVersion: model.frameworkVersion,
    region: deps.region,
    instanceType: candidate.instanceType ?? 'ml.m5.large',
    compiledFor: candidate.compiledFor,
    explicitImage: model.image,
    explicitCompiledImage: model.compiledImage,
    compilationImage,
  });

  const tags = { ...event.plan.tags, [TAG_KEYS.candidateId]: candidate.id };
  await deps.host.createModel({
    modelName: candidate.modelName,
    image,
    modelDataUrl: artifactUri,
    environment: candidate.environment,
    tags,
  });
  await deps.host.createEndpointConfig({
    endpointConfigName: candidate.endpointConfigName,
    variant: {
      variantName: VARIANT_NAME,
      modelName: candidate.modelName,
      ...(candidate.instanceType === undefined
        ? {}
        : { instanceType: candidate.instanceType, initialInstanceCount: candidate.initialInstanceCount }),
      ...(candidate.serverless === undefined ? {} : { serverless: candidate.serverless }),
    },
    tags,
  });
  const createdEpochMs = deps.nowEpochMs();
  await deps.host.createEndpoint({
    endpointName: candidate.endpointName,
    endpointConfigName: candidate.endpointConfigName,
    tags,
  });
  deps.logger.info('Endpoint creating', {
    candidateId: candidate.id,
    endpointName: candidate.endpointName,
    image,
    imageSource,
  });
  return { ...pending, createdEpochMs };
}

export interface CheckEndpointEvent {
  readonly plan: Pick<RunPlan, 'loadPlan' | 'existingEndpoint'>;
  readonly deployment: DeploymentState;
}

export interface CheckEndpointDeps extends EndpointTimings {
  readonly host: ModelHost;
  readonly logger: Logger;
}

/**
 * State "Check endpoint": one DescribeEndpoint. In service → the load workers' shared start, with
 * the instance type, current instance count and variant the endpoint really has (what the report
 * prices and whose metrics it reads); Failed → `EndpointFailedError` with SageMaker's
 * FailureReason; still creating → wait again, until the deadline.
 *
 * An existing endpoint with several production variants is refused: the load would split between
 * them by weight (InvokeEndpoint without TargetVariant, SageMaker API reference), so neither the
 * cost nor the latency could be attributed to one instance type.
 */
export async function checkEndpoint(
  event: CheckEndpointEvent,
  deps: CheckEndpointDeps,
): Promise<DeploymentState> {
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
    throw new EndpointFailedError(
      `Endpoint ${deployment.endpointName} failed: ${endpoint.failureReason ?? 'SageMaker gave no reason'}`,
      { endpointName: deployment.endpointName, failureReason: endpoint.failureReason },
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
