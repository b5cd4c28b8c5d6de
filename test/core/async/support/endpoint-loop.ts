import type { PrepareAsyncEndpointDeps } from '../../../../core/async/endpoint-loop.js';
import {
  AsyncEndpointPhases,
  type AsyncEndpointState,
  type AsyncRunPlan,
} from '../../../../core/contracts/async-state.js';
import { silentLogger } from '../../../support/memory-object-store.js';
import type { FakeScalingRegistry, ScriptedSageMaker } from './async-fakes.js';

/** The plans, states and deps the tests of "Deploy async endpoint" and "Check async endpoint" share. */

export const NOW_MS = Date.parse('2026-05-23T03:10:00.000Z');
export const RUN_ID = 'nightly-2026-05-23';
export const ENDPOINT = 'mso-nightly-2026-05-23-558c6ef5-ep-async';
export const CONFIG = 'mso-nightly-2026-05-23-558c6ef5-ec-async';
export const MODEL = 'mso-nightly-2026-05-23-558c6ef5-m-async';
export const REUSED = 'team-async-endpoint';
export const OUTPUT = {
  successTopicArn: 'arn:aws:sns:us-east-1:123456789012:mso-async-success',
  errorTopicArn: 'arn:aws:sns:us-east-1:123456789012:mso-async-error',
  kmsKeyId: 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
};
export const TAGS = { 'mso:project': 'model-serving-optimizer', 'mso:run-id': RUN_ID };
export const POLL_SECONDS = 30;
export const MAX_POLL_SECONDS = 120;

/** What to deploy, without `maxConcurrentInvocationsPerInstance` (SageMaker then picks). */
export const DEPLOY_SPEC = {
  image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.6.0-cpu-py312',
  modelDataUrl: 's3://mso-artifacts/models/cnn/model.tar.gz',
  environment: { OMP_NUM_THREADS: '2' },
  instanceType: 'ml.c5.xlarge',
  maxInstanceCount: 3,
  targetBacklogPerInstance: 2,
};

/** A plan as "Validate async run" writes it for an endpoint deployed for the run. */
export function deployPlan(overrides: Partial<AsyncRunPlan> = {}): AsyncRunPlan {
  return {
    runId: RUN_ID,
    runPrefixUri: `s3://mso-artifacts/runs/${RUN_ID}/`,
    manifestUri: `s3://mso-artifacts/runs/${RUN_ID}/async/inputs.json`,
    itemCount: 1,
    batches: [{ batchIndex: 0, firstItemIndex: 0, itemCount: 1 }],
    batchConcurrency: 1,
    itemConcurrency: 1,
    invocation: {
      endpointName: ENDPOINT,
      contentType: 'application/json',
      invocationTimeoutSeconds: 900,
      requestTtlSeconds: 21_600,
      waitTimeoutSeconds: 26_100,
    },
    endpoint: {
      action: 'deploy',
      endpointName: ENDPOINT,
      endpointConfigName: CONFIG,
      modelName: MODEL,
      variantName: 'AllTraffic',
      keepAfterRun: false,
      deploy: { ...DEPLOY_SPEC, maxConcurrentInvocationsPerInstance: 4 },
    },
    tags: TAGS,
    plannedAtEpochMs: NOW_MS - 600_000,
    ...overrides,
  };
}

export function reusePlan(overrides: Partial<AsyncRunPlan> = {}): AsyncRunPlan {
  return deployPlan({
    endpoint: { action: 'reuse', endpointName: REUSED, variantName: 'AllTraffic', keepAfterRun: true },
    ...overrides,
  });
}

export const CREATING: AsyncEndpointState = {
  phase: AsyncEndpointPhases.creating,
  waitSeconds: POLL_SECONDS,
  deadlineEpochMs: NOW_MS + 35 * 60_000,
};
export const SCALING_IN: AsyncEndpointState = {
  phase: AsyncEndpointPhases.scalingIn,
  waitSeconds: POLL_SECONDS,
  deadlineEpochMs: NOW_MS + 50 * 60_000,
};

/** The loop's deps over the test's fakes, at `NOW_MS`. */
export function endpointLoopDeps(
  sagemaker: ScriptedSageMaker,
  scaling: FakeScalingRegistry,
  overrides: Partial<PrepareAsyncEndpointDeps> = {},
): PrepareAsyncEndpointDeps {
  return {
    host: sagemaker,
    scaling,
    output: OUTPUT,
    pollSeconds: POLL_SECONDS,
    maxPollSeconds: MAX_POLL_SECONDS,
    nowEpochMs: () => NOW_MS,
    logger: silentLogger,
    ...overrides,
  };
}
