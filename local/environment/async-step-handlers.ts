import { loadBatch } from '../../core/steps/async/load-batch.js';
import { recordBatchResults } from '../../core/steps/async/record-batch-results.js';
import { cleanUpAsyncRun } from '../../core/steps/async/clean-up-async-run.js';
import { invokeAsyncInference } from '../../core/steps/async/invoke-async-inference.js';
import type {
  AsyncInvoker,
  TaskResumer,
  TaskTokenStore,
  PrepareAsyncEndpointDeps,
} from '../../core/async/index.js';
import { checkAsyncEndpoint } from '../../core/steps/async/check-async-endpoint.js';
import { deployAsyncEndpoint } from '../../core/steps/async/deploy-async-endpoint.js';
import { summarizeAsyncRun } from '../../core/steps/async/summarize-async-run.js';
import { validateAsyncRun, type ValidateAsyncRunDeps } from '../../core/steps/async/validate-async-run.js';
import type { AsyncInferenceStepEventsByName, AsyncInferenceStepName } from '../../core/contracts/index.js';
import { DEFAULT_POLL_SCHEDULE } from '../../core/contracts/index.js';
import type {
  AsyncEndpointObserver,
  Logger,
  ModelHost,
  ObjectStore,
  ScalingRegistry,
} from '../../core/ports/index.js';
import { runnerHandlers, type StepHandler } from './step-handlers.js';

/** What the async workflow's steps run on, outside Lambda: local adapters, or fakes in tests. */
export interface AsyncStepDependencies {
  readonly store: ObjectStore;
  readonly host: ModelHost;
  readonly scaling: ScalingRegistry;
  readonly tokens: TaskTokenStore;
  readonly resumer: TaskResumer;
  readonly invoker: AsyncInvoker;
  readonly observer?: AsyncEndpointObserver;
  readonly logger: Logger;
  readonly artifactsBucket: string;
  readonly region: string;
  readonly allowFileUris: boolean;
  /** The topics the local endpoint publishes to; the local notification bus delivers them. */
  readonly notificationTopics: PrepareAsyncEndpointDeps['output'];
  /** Checks a reused endpoint's execution role (see `ValidateAsyncRunDeps`). */
  readonly reusedEndpointRole?: ValidateAsyncRunDeps['reusedEndpointRole'];
  /** The wait task's TimeoutSeconds as synthesized (the runner scales the real wait). */
  readonly waitTimeoutSeconds: number;
  readonly pollSeconds: number;
  readonly maxPollSeconds: number;
  readonly nowEpochMs?: () => number;
}

/** What "Validate async run" runs on locally; the local `--plan` plans over the same. */
export function validateAsyncRunDeps(deps: AsyncStepDependencies): ValidateAsyncRunDeps {
  return {
    store: deps.store,
    host: deps.host,
    artifactsBucket: deps.artifactsBucket,
    region: deps.region,
    allowFileUris: deps.allowFileUris,
    // The two topics only, as the Lambda passes them (lambdas/async-wiring.ts): no output key.
    notificationTopics: {
      successTopicArn: deps.notificationTopics.successTopicArn,
      errorTopicArn: deps.notificationTopics.errorTopicArn,
    },
    ...(deps.reusedEndpointRole === undefined ? {} : { reusedEndpointRole: deps.reusedEndpointRole }),
    waitTimeoutSeconds: deps.waitTimeoutSeconds,
    pollSeconds: deps.pollSeconds,
    // The history quota is AWS's: count the polls the deployed workflow makes by default.
    polling: DEFAULT_POLL_SCHEDULE,
    nowEpochMs: deps.nowEpochMs ?? Date.now,
    logger: deps.logger,
  };
}

/**
 * The same core functions the async workflow's Lambdas call (`lambdas/<step>.ts`), keyed by the
 * step name each Lambda carries in `STEP_NAME`. Typed by the registry (ASYNC_INFERENCE_STEPS), so
 * a step without a local handler, or a misspelt key, fails the type-check.
 */
export function createAsyncStepHandlers(
  deps: AsyncStepDependencies,
): Readonly<Record<AsyncInferenceStepName, StepHandler>> {
  const nowEpochMs = deps.nowEpochMs ?? Date.now;
  const { store, host, scaling, logger } = deps;
  const endpointDeps: PrepareAsyncEndpointDeps = {
    host,
    scaling,
    output: deps.notificationTopics,
    pollSeconds: deps.pollSeconds,
    maxPollSeconds: deps.maxPollSeconds,
    nowEpochMs,
    logger,
  };
  return runnerHandlers<AsyncInferenceStepEventsByName>({
    'validate-async-run': (payload) => validateAsyncRun(payload, validateAsyncRunDeps(deps)),
    'deploy-async-endpoint': (payload) => deployAsyncEndpoint(payload, endpointDeps),
    'check-async-endpoint': (payload) => checkAsyncEndpoint(payload, endpointDeps),
    'load-batch': (payload) => loadBatch(payload, { store, logger }),
    'invoke-async-inference': (payload) =>
      invokeAsyncInference(payload, {
        store: deps.tokens,
        resumer: deps.resumer,
        invoker: deps.invoker,
        logger,
        nowEpochMs,
      }),
    'record-batch-results': (payload) => recordBatchResults(payload, { store, logger }),
    'summarize-async-run': (payload) =>
      summarizeAsyncRun(payload, {
        store,
        logger,
        nowEpochMs,
        ...(deps.observer === undefined ? {} : { observer: deps.observer }),
        measuredLocally: true,
      }),
    'clean-up-async-run': (payload) => cleanUpAsyncRun(payload, { host, scaling, store, logger }),
  });
}
