import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { AsyncInferenceStepName } from '../../../core/contracts/async-state.js';
import type { OptimizationStepName } from '../../../core/contracts/optimization-state.js';
import type { StepHandler } from '../../../local/environment/step-handlers.js';
import {
  LOCAL_WIRING_DIFFERENCES,
  type WiringDifference,
} from '../../../local/environment/wiring-differences.js';
import { fakeContext, setStepEnvironment } from '../../lambdas/support/fake-context.js';

/**
 * Each step's two wirings side by side: the Lambda entry (`lambdas/<step>.ts`) and the local
 * handler (local/environment/step-handlers.ts, local/environment/async-step-handlers.ts) call the same core function, here
 * replaced by one that records the dependencies it is given. The keys each side passes must match,
 * except for the differences declared in LOCAL_WIRING_DIFFERENCES. The local side gets every
 * optional dependency, so a key it leaves out is left out by its wiring, not by a caller.
 */

type StepName = OptimizationStepName | AsyncInferenceStepName;

/** Where each step's core function lives: typed by the registries, so a new step needs a row. */
const CORES: Readonly<Record<StepName, { readonly module: string; readonly name: string }>> = {
  'validate-and-plan': {
    module: '../../../core/steps/optimization/validate-and-plan.js',
    name: 'validateAndPlan',
  },
  'package-model': { module: '../../../core/steps/optimization/package-model.js', name: 'packageModel' },
  'start-compilation': {
    module: '../../../core/steps/optimization/start-compilation.js',
    name: 'startCompilation',
  },
  'check-compilation': {
    module: '../../../core/steps/optimization/check-compilation.js',
    name: 'checkCompilation',
  },
  'deploy-candidate': {
    module: '../../../core/steps/optimization/deploy-candidate.js',
    name: 'deployCandidate',
  },
  'check-endpoint': { module: '../../../core/steps/optimization/check-endpoint.js', name: 'checkEndpoint' },
  'run-load-worker': {
    module: '../../../core/steps/optimization/run-load-worker.js',
    name: 'runLoadWorker',
  },
  'aggregate-load-test': {
    module: '../../../core/steps/optimization/aggregate-load-test.js',
    name: 'aggregateLoadTest',
  },
  'delete-candidate': {
    module: '../../../core/steps/optimization/delete-candidate.js',
    name: 'deleteCandidate',
  },
  recommend: { module: '../../../core/steps/optimization/recommend.js', name: 'recommend' },
  'record-proof': { module: '../../../core/steps/optimization/record-proof.js', name: 'recordProof' },
  'ramp-scaling': { module: '../../../core/steps/optimization/ramp-scaling.js', name: 'rampScaling' },
  'record-ramp': { module: '../../../core/steps/optimization/record-ramp.js', name: 'recordRamp' },
  'quality-pass': { module: '../../../core/steps/optimization/quality-pass.js', name: 'qualityPass' },
  'clean-up': { module: '../../../core/steps/optimization/clean-up.js', name: 'cleanUpOptimizationRun' },
  'validate-async-run': {
    module: '../../../core/steps/async/validate-async-run.js',
    name: 'validateAsyncRun',
  },
  'deploy-async-endpoint': {
    module: '../../../core/steps/async/deploy-async-endpoint.js',
    name: 'deployAsyncEndpoint',
  },
  'check-async-endpoint': {
    module: '../../../core/steps/async/check-async-endpoint.js',
    name: 'checkAsyncEndpoint',
  },
  'load-batch': { module: '../../../core/steps/async/load-batch.js', name: 'loadBatch' },
  'invoke-async-inference': {
    module: '../../../core/steps/async/invoke-async-inference.js',
    name: 'invokeAsyncInference',
  },
  'record-batch-results': {
    module: '../../../core/steps/async/record-batch-results.js',
    name: 'recordBatchResults',
  },
  'summarize-async-run': {
    module: '../../../core/steps/async/summarize-async-run.js',
    name: 'summarizeAsyncRun',
  },
  'clean-up-async-run': {
    module: '../../../core/steps/async/clean-up-async-run.js',
    name: 'cleanUpAsyncRun',
  },
};

/** The dependencies each call of a core function got, in order. */
const calls: Record<string, unknown>[] = [];

for (const { module, name } of Object.values(CORES)) {
  const actual: Record<string, unknown> = await import(module);
  jest.unstable_mockModule(module, () => ({
    ...actual,
    [name]: (_event: unknown, deps: Record<string, unknown>) => {
      calls.push(deps);
      return Promise.resolve(undefined);
    },
  }));
}

setStepEnvironment({
  TASK_TOKEN_TABLE: 'mso-async-task-tokens',
  ASYNC_SUCCESS_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:mso-async-success',
  ASYNC_ERROR_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:mso-async-error',
  ASYNC_OUTPUT_KMS_KEY_ID: 'arn:aws:kms:us-east-1:123456789012:key/artifacts',
  ASYNC_TOPICS_KEY_ARN: 'arn:aws:kms:us-east-1:123456789012:key/topics',
});

/** A port the recording core never calls (only its presence is compared): `never` fits every port type. */
const PORT = {} as never;

/** A dependency set's keys, with the settings inside plain objects (`polling.endpoint`, …). */
function keysOf(deps: Record<string, unknown>): Set<string> {
  const keys = new Set<string>();
  for (const [key, value] of Object.entries(deps)) {
    if (value === undefined) continue;
    keys.add(key);
    if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
      for (const [inner, innerValue] of Object.entries(value)) {
        if (innerValue !== undefined && typeof innerValue !== 'function') keys.add(`${key}.${inner}`);
      }
    }
  }
  return keys;
}

/** What differs between the two wirings of one step that the allow-list does not declare. */
function undeclaredDifferences(
  step: string,
  lambdaKeys: ReadonlySet<string>,
  localKeys: ReadonlySet<string>,
  declared: WiringDifference = {},
): string[] {
  const problems: string[] = [];
  const lambdaOnly = [...lambdaKeys].filter((key) => !localKeys.has(key));
  const localOnly = [...localKeys].filter((key) => !lambdaKeys.has(key));
  const undeclaredLambda = lambdaOnly.filter((key) => declared.lambdaOnly?.[key] === undefined);
  const undeclaredLocal = localOnly.filter((key) => declared.localOnly?.[key] === undefined);
  if (undeclaredLambda.length > 0) {
    problems.push(
      `step ${step}: the Lambda passes ${undeclaredLambda.join(', ')} that the local handler does not`,
    );
  }
  if (undeclaredLocal.length > 0) {
    problems.push(
      `step ${step}: the local handler passes ${undeclaredLocal.join(', ')} that the Lambda does not`,
    );
  }
  const stale = [
    ...Object.keys(declared.lambdaOnly ?? {}).filter((key) => !lambdaOnly.includes(key)),
    ...Object.keys(declared.localOnly ?? {}).filter((key) => !localOnly.includes(key)),
  ];
  if (stale.length > 0) {
    problems.push(
      `step ${step}: LOCAL_WIRING_DIFFERENCES declares ${stale.join(', ')}, which no longer differ`,
    );
  }
  return problems;
}

async function depsOf(call: () => Promise<unknown>): Promise<Set<string>> {
  calls.length = 0;
  await call();
  const [deps] = calls;
  if (deps === undefined || calls.length !== 1) {
    throw new Error(`expected one call of the core function, got ${calls.length}`);
  }
  return keysOf(deps);
}

let localHandlers: Readonly<Record<StepName, StepHandler>>;

beforeAll(async () => {
  const { createStepHandlers } = await import('../../../local/environment/step-handlers.js');
  const { createAsyncStepHandlers } = await import('../../../local/environment/async-step-handlers.js');
  const optimization = createStepHandlers({
    store: PORT,
    host: PORT,
    compiler: PORT,
    optimizer: PORT,
    openTransport: PORT,
    openStreamTransport: PORT,
    logger: PORT,
    artifactsBucket: 'mso-artifacts',
    region: 'local',
    allowFileUris: true,
    measuredLocally: true,
    pollSeconds: 1,
    maxPollSeconds: 30,
    loadStartDelaySeconds: 1,
    loadSegmentSeconds: 60,
    now: () => new Date(0),
    localFileOf: () => undefined,
    metrics: PORT,
    invocations: PORT,
    realtimeScaling: PORT,
    instanceSeriesSource: 'from the test',
    instanceQuotas: PORT,
    onLoadProgress: () => undefined,
  });
  const asyncInference = createAsyncStepHandlers({
    store: PORT,
    host: PORT,
    scaling: PORT,
    tokens: PORT,
    resumer: PORT,
    invoker: PORT,
    observer: PORT,
    logger: PORT,
    artifactsBucket: 'mso-artifacts',
    region: 'local',
    allowFileUris: true,
    notificationTopics: { successTopicArn: 'local:success', errorTopicArn: 'local:error', kmsKeyId: 'local' },
    reusedEndpointRole: { roles: PORT, simulator: PORT, topicsKeyArn: 'local' },
    waitTimeoutSeconds: 3600,
    pollSeconds: 1,
    maxPollSeconds: 30,
    nowEpochMs: () => 0,
  });
  localHandlers = { ...optimization, ...asyncInference };
});

describe('the local wiring of each step', () => {
  it.each(Object.keys(CORES) as StepName[])('passes what the Lambda of %s passes', async (step) => {
    // Prepare
    const entry: { handler: (event: unknown, context: ReturnType<typeof fakeContext>) => Promise<unknown> } =
      await import(`../../../lambdas/${step}.js`);
    const local = localHandlers[step];

    // Act
    const lambdaKeys = await depsOf(() => entry.handler({}, fakeContext()));
    const localKeys = await depsOf(() => local({}, new AbortController().signal));

    // Assert
    expect(undeclaredDifferences(step, lambdaKeys, localKeys, LOCAL_WIRING_DIFFERENCES[step])).toEqual([]);
  });
});

describe('undeclaredDifferences', () => {
  it('fails when the Lambda passes a dependency the local handler does not', () => {
    expect(undeclaredDifferences('s', new Set(['store', 'servingRegion']), new Set(['store']))).toEqual([
      'step s: the Lambda passes servingRegion that the local handler does not',
    ]);
  });

  it('fails when the local handler passes a dependency the Lambda does not', () => {
    expect(undeclaredDifferences('s', new Set(['store']), new Set(['store', 'signal']))).toEqual([
      'step s: the local handler passes signal that the Lambda does not',
    ]);
  });

  it('fails when a declared difference no longer differs', () => {
    expect(
      undeclaredDifferences('s', new Set(['store']), new Set(['store']), { localOnly: { signal: 'why' } }),
    ).toEqual(['step s: LOCAL_WIRING_DIFFERENCES declares signal, which no longer differ']);
  });

  it('accepts a declared difference', () => {
    expect(
      undeclaredDifferences('s', new Set(['store']), new Set(['store', 'signal']), {
        localOnly: { signal: 'why' },
      }),
    ).toEqual([]);
  });
});
