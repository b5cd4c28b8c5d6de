import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  ApplicationAutoScalingRegistry,
  AwsAsyncEndpointObserver,
  DynamoDbTokenStore,
  SfnTaskResumer,
  S3ObjectStore,
  ServiceQuotasInstanceReader,
  Ec2InstanceFactsReader,
  PricingHostingPrices,
  SageMakerCompiler,
  SageMakerOptimizer,
  SageMakerModelHost,
} from './adapters/index.js';
import type {
  AsyncEndpointObserver,
  ModelCompiler,
  ModelOptimizer,
  ModelHost,
  ObjectStore,
  ScalingRegistry,
} from '../core/ports/index.js';
import { DEFAULT_POLL_SCHEDULE } from '../core/contracts/index.js';
import type { ValidateAndPlanDeps } from '../core/steps/optimization/validate-and-plan.js';
import {
  createApplicationAutoScalingClient,
  createCloudWatchClient,
  createEc2Client,
  createPricingClient,
  createS3Client,
  createServiceQuotasClient,
} from './aws-clients.js';
import { getNumberEnv, getRequiredEnv, StepVariables } from './config.js';
import { tracer } from './step.js';

/**
 * Adapters and settings the entries build at module scope, read from the environment once. Each
 * entry calls only what its step uses, so a Lambda needs only its own variables.
 */

const SAGEMAKER_ROLE_SOURCE =
  'the optimization workflow sets it on the steps that create SageMaker resources (deploy-candidate, ' +
  "start-compilation) from the stack's SageMaker execution role";

export function artifactsBucket(): string {
  return getRequiredEnv(StepVariables.artifactsBucket);
}

export function s3Store(): ObjectStore {
  return new S3ObjectStore(createS3Client());
}

/**
 * `withRole`: the step creates models (CreateModel needs the SageMaker execution role). Pass one
 * client to every SageMaker adapter of an entry: the adaptive retry's rate limiter is per client.
 */
export function sagemakerHost(client: SageMakerClient, options: { readonly withRole: boolean }): ModelHost {
  return new SageMakerModelHost({
    client,
    ...(options.withRole
      ? { executionRoleArn: getRequiredEnv(StepVariables.sagemakerExecutionRoleArn, SAGEMAKER_ROLE_SOURCE) }
      : {}),
  });
}

/** `withRole`: the step starts compilation jobs (CreateCompilationJob needs the role). */
export function sagemakerCompiler(
  client: SageMakerClient,
  options: { readonly withRole: boolean },
): ModelCompiler {
  return new SageMakerCompiler({
    client,
    ...(options.withRole
      ? { executionRoleArn: getRequiredEnv(StepVariables.sagemakerExecutionRoleArn, SAGEMAKER_ROLE_SOURCE) }
      : {}),
  });
}

/** The optimization jobs' adapter; the role only where jobs are created ("Start compilation job"). */
export function sagemakerOptimizer(
  client: SageMakerClient,
  options: { readonly withRole: boolean },
): ModelOptimizer {
  return new SageMakerOptimizer({
    client,
    ...(options.withRole
      ? { executionRoleArn: getRequiredEnv(StepVariables.sagemakerExecutionRoleArn, SAGEMAKER_ROLE_SOURCE) }
      : {}),
  });
}

/** A Wait state's seconds: at least 1, at most an hour (a poll interval, not a deadline). */
const POLL_BOUNDS = { min: 1, max: 3600, integer: true } as const;
/**
 * Where the back-off stops: at least 30 s, so a 45-minute endpoint deadline (plus an hour of
 * scale-in wait in an async benchmark) stays a few hundred history events, far from the 25,000 of
 * a Standard execution.
 */
const MAX_POLL_BOUNDS = { min: 30, max: 3600, integer: true } as const;

/**
 * Polls start at 30 s and double up to 2 min: Neo jobs and endpoint creation both take minutes
 * (5–10 for an endpoint), so a tighter loop only adds history events and Describe calls.
 */
const DEFAULT_POLL_SECONDS = DEFAULT_POLL_SCHEDULE.pollSeconds;
const DEFAULT_MAX_POLL_SECONDS = DEFAULT_POLL_SCHEDULE.maxPollSeconds;

export interface PollTimings {
  readonly pollSeconds: number;
  readonly maxPollSeconds: number;
}

function pollTimings(pollVariable: string, maxVariable: string): PollTimings {
  const pollSeconds = getNumberEnv(pollVariable, DEFAULT_POLL_SECONDS, POLL_BOUNDS);
  const maxPollSeconds = getNumberEnv(
    maxVariable,
    Math.max(DEFAULT_MAX_POLL_SECONDS, pollSeconds),
    MAX_POLL_BOUNDS,
  );
  if (maxPollSeconds < pollSeconds) {
    throw new Error(
      `Environment variable ${maxVariable}: got ${maxPollSeconds}, expected at least ${pollVariable} (${pollSeconds})`,
    );
  }
  return { pollSeconds, maxPollSeconds };
}

export function compilationTimings(): PollTimings {
  return pollTimings(StepVariables.compilationPollSeconds, StepVariables.compilationMaxPollSeconds);
}

export function endpointTimings(): PollTimings & { readonly loadStartDelaySeconds: number } {
  return {
    ...pollTimings(StepVariables.endpointPollSeconds, StepVariables.endpointMaxPollSeconds),
    // Time for every load worker Lambda of the Map to start before the shared start instant.
    loadStartDelaySeconds: getNumberEnv(StepVariables.loadStartDelaySeconds, 10, { min: 0, max: 300 }),
  };
}

export function region(): string {
  return getRequiredEnv(StepVariables.region, 'the Lambda runtime sets it; outside Lambda, export it');
}

/**
 * What "Validate and plan" reads with on AWS, built once at module scope: the state's Lambda and the
 * run API's plan route (lambdas/plan-run.ts) plan with the same adapters and settings. `file://`
 * URIs are refused (a Lambda cannot read the user's disk); the polls are read as the polling steps
 * read them, so the worst-case history counts the schedule they follow; prices and instance facts
 * are read live for the Lambda's region (the Price List API, EC2).
 */
export function validateAndPlanDeps(): Omit<ValidateAndPlanDeps, 'logger'> {
  const servingRegion = region();
  return {
    store: s3Store(),
    artifactsBucket: artifactsBucket(),
    allowFileUris: false,
    servingRegion,
    polling: { endpoint: endpointTimings(), compilation: compilationTimings() },
    instanceQuotas: new ServiceQuotasInstanceReader(createServiceQuotasClient()),
    market: {
      prices: new PricingHostingPrices(createPricingClient(servingRegion)),
      facts: new Ec2InstanceFactsReader(createEc2Client()),
    },
  };
}

const TASK_TOKEN_TABLE_SOURCE =
  "the async-inference workflow sets it to its task-token table's name; outside Lambda, export it";

/** The async workflow's task-token table (DynamoDB), from TASK_TOKEN_TABLE. */
export function taskTokenStore(): DynamoDbTokenStore {
  return new DynamoDbTokenStore({
    client: DynamoDBDocumentClient.from(tracer.captureAWSv3Client(new DynamoDBClient({}))),
    tableName: getRequiredEnv(StepVariables.taskTokenTable, TASK_TOKEN_TABLE_SOURCE),
  });
}

/** Resumes waiting Step Functions tasks (SendTaskSuccess/Failure/Heartbeat). */
export function taskResumer(): SfnTaskResumer {
  return new SfnTaskResumer({ client: tracer.captureAWSv3Client(new SFNClient({})) });
}

/** Autoscaling of endpoint variants (Application Auto Scaling, plus the CloudWatch alarm of async endpoints). */
export function scalingRegistry(): ScalingRegistry {
  return new ApplicationAutoScalingRegistry({
    autoScaling: createApplicationAutoScalingClient(),
    cloudWatch: createCloudWatchClient(),
  });
}

/** An async endpoint's scaling activities and queue metrics, for the async benchmark's summary. */
export function asyncEndpointObserver(): AsyncEndpointObserver {
  return new AwsAsyncEndpointObserver({
    autoScaling: createApplicationAutoScalingClient(),
    cloudWatch: createCloudWatchClient(),
  });
}
