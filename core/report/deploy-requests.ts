import { resolveServingImage } from '../catalog/index.js';
import type { CompilationState, PackagedModel, PlannedCandidate, RunPlan } from '../contracts/index.js';
import {
  candidateDeployment,
  createEndpointConfigRequest,
  createEndpointRequest,
  createModelRequest,
  type CreateEndpointConfigRequest,
  type CreateEndpointRequest,
  type CreateModelRequest,
} from '../deployment/index.js';
import { PRICE_TABLE_SOURCE } from '../contracts/index.js';

/**
 * report.json's `deploy` of a candidate: the CreateModel, CreateEndpointConfig and CreateEndpoint
 * requests "Deploy candidate" sent for it, built by the same code (deployment/candidate-deployment.ts
 * and deployment/sagemaker-requests.ts), with three changes a user needs to deploy it themselves:
 *
 * - the names and the execution role are placeholders to fill: the run's names start with the
 *   project's prefix, which clean-up and the janitor delete by;
 * - no tags: the run's tags (run id, candidate id) would mark the endpoint as a run's, to be swept;
 * - everything else (image, model data, environment, variant, instance type and count, serverless
 *   configuration) is exactly what the workflow deployed.
 */

export const DEPLOY_PLACEHOLDERS = {
  modelName: '<model-name>',
  endpointConfigName: '<endpoint-config-name>',
  endpointName: '<endpoint-name>',
  executionRoleArn: '<sagemaker-execution-role-arn>',
} as const;

export interface CandidateDeploy {
  readonly createModel: CreateModelRequest;
  readonly createEndpointConfig: CreateEndpointConfigRequest;
  readonly createEndpoint: CreateEndpointRequest;
  /** The Region the run deployed in (its image URI is that Region's). */
  readonly region: string;
  /** Which table row, run-input field or compilation job gave the image. */
  readonly imageSource: string;
  /**
   * Local runs: the image the same candidate gets on AWS (the image table, in the price table's
   * Region), or why there is none. The requests keep the local image: that is what was measured.
   */
  readonly onAws?: { readonly imageUri: string; readonly source: string } | { readonly note: string };
  /** Local runs: the file the requests' `ModelDataUrl` is, relative to the report's folder (local-files.ts). */
  readonly modelDataFile?: string;
}

/** What "Deploy candidate" read besides the plan: the state the workflow passes to "Recommend". */
export interface DeploymentContext {
  readonly packagedModel: PackagedModel;
  readonly compilations: readonly CompilationState[];
  readonly region: string;
}

/** A candidate's `deploy`, or why it has none (`deployNote`). */
export function candidateDeploy(
  plan: RunPlan,
  candidate: PlannedCandidate,
  context: DeploymentContext,
  measuredLocally: boolean,
): { readonly deploy: CandidateDeploy } | { readonly deployNote: string } {
  let deployment;
  try {
    deployment = candidateDeployment(
      { plan, candidate, packagedModel: context.packagedModel, compilations: context.compilations },
      context.region,
    );
  } catch (error) {
    return { deployNote: `nothing was deployed: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (deployment.kind === 'existing') {
    return { deployNote: 'an existing endpoint: the run tested it as it is and created nothing' };
  }
  if (deployment.kind === 'skipped') {
    return { deployNote: `nothing was deployed: ${deployment.skipReason}` };
  }
  const names = DEPLOY_PLACEHOLDERS;
  const noTags = {};
  const model = { ...deployment.model, modelName: names.modelName, tags: noTags };
  const onAws = measuredLocally ? awsImageOf(plan, candidate) : undefined;
  return {
    deploy: {
      createModel: createModelRequest(model, names.executionRoleArn),
      createEndpointConfig: createEndpointConfigRequest({
        endpointConfigName: names.endpointConfigName,
        variant: { ...deployment.endpointConfig.variant, modelName: names.modelName },
        tags: noTags,
      }),
      createEndpoint: createEndpointRequest({
        endpointName: names.endpointName,
        endpointConfigName: names.endpointConfigName,
        tags: noTags,
      }),
      region: context.region,
      imageSource: deployment.imageSource,
      ...(onAws === undefined ? {} : { onAws }),
    },
  };
}

/**
 * The image the candidate would run on in AWS: the table's, as if the run input named no image
 * (a local run's `model.image` is the local model server). In the price table's Region, the one the
 * local figures are priced in.
 */
function awsImageOf(plan: RunPlan, candidate: PlannedCandidate): NonNullable<CandidateDeploy['onAws']> {
  const model = plan.model;
  if (model === undefined) return { note: 'the run has no model' };
  try {
    const { imageUri, source } = resolveServingImage({
      framework: model.framework,
      frameworkVersion: model.frameworkVersion,
      region: PRICE_TABLE_SOURCE.region,
      instanceType: candidate.instanceType ?? 'ml.m5.large',
      compiledFor: candidate.compiledFor,
    });
    return { imageUri, source };
  } catch (error) {
    return {
      note: `the local image has no AWS equivalent in the image table: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
