import { resolveServingImage } from './catalog/images.js';
import { failureReasonOf } from './contracts/caught-error.js';
import { EndpointFailedError } from './contracts/errors.js';
import { TAG_KEYS } from './contracts/names.js';
import {
  CandidateStatuses,
  CompilationOutcomes,
  type DeployCandidateEvent,
  type DeploymentState,
} from './contracts/optimization-state.js';
import type { Logger, ModelHost } from './ports.js';
import {
  ENDPOINT_DEADLINE_SECONDS,
  type EndpointTimings,
  VARIANT_NAME,
} from './shared/endpoint-deployment.js';

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
