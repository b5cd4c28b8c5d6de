/**
 * Local mode's composition root for the async-inference workflow: the local store, the local model
 * host with its async endpoints, the notification bus with the notification Lambda's core
 * subscribed to both topics, the task-token store, the runner's task-token broker behind the
 * resumer, the invoker, autoscaling and its observer, the heartbeat sender, and the same step
 * handlers the Lambdas call. `runLocalAsyncInference` runs the synthesized async definition over
 * them. The CLI (`local/async-cli.ts`) and the end-to-end tests build on this module.
 */
import {
  handleAsyncNotifications,
  throwIfRetryNeeded,
} from '../../core/operations/handle-async-notification.js';
import { LOST_NOTIFICATION_AFTER_MS } from '../../core/operations/lost-notification.js';
import { type HeartbeatSummary, sendAsyncHeartbeats } from '../../core/operations/send-async-heartbeats.js';
import { type PlannedAsyncRun, planAsyncRun } from '../../core/steps/async/validate-async-run.js';
import {
  type AsyncRunPlan,
  AsyncInferenceStates,
  type ValidateAsyncRunEvent,
  describeError,
} from '../../core/contracts/index.js';
import {
  type AsyncStepDependencies,
  createAsyncStepHandlers,
  validateAsyncRunDeps,
} from './async-step-handlers.js';
import { LocalAsyncPlatform, LocalModelHost } from '../platform/index.js';
import {
  type ExtractedStateMachine,
  LOCAL_ACCOUNT_ID,
  type RunnerEvent,
  TaskTokenBroker,
  walkStates,
} from '../runner/index.js';
import {
  createLocalStore,
  LOCAL_ARTIFACTS_BUCKET,
  LOCAL_REGION,
  type LocalEnvironmentBaseOptions,
  type LocalWorkflowEnvironment,
  type LocalWorkflowOutcome,
  type LocalWorkflowRunOptions,
  runLocalWorkflow,
} from './workflow-environment.js';
import { LocalAsyncInvoker, LocalTaskResumer, MemoryTaskTokenStore } from '../async/index.js';

/** The topics local async endpoints publish to; the notification handler listens to both. */
export const LOCAL_NOTIFICATION_TOPICS = {
  successTopicArn: `arn:aws:sns:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:mso-async-success`,
  errorTopicArn: `arn:aws:sns:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:mso-async-errors`,
} as const;

export interface LocalAsyncEnvironmentOptions extends LocalEnvironmentBaseOptions {
  /** The wait task's TimeoutSeconds as synthesized: the first state checks queue TTLs against it. */
  readonly waitTimeoutSeconds: number;
  /** Scaling cooldowns last `cooldownSeconds × this`. @default 0.01 (see `LocalAsyncPlatform`) */
  readonly cooldownTimeScale?: number;
  /**
   * The heartbeat sender looks for the output of a task waiting longer than this.
   * @default LOST_NOTIFICATION_AFTER_MS, as on AWS
   */
  readonly lostNotificationAfterMs?: number;
}

/** `close()` also waits for the notifications still being delivered. */
export interface LocalAsyncEnvironment extends LocalWorkflowEnvironment {
  readonly platform: LocalAsyncPlatform;
  readonly tokens: MemoryTaskTokenStore;
  /** Issues the runner's task tokens; the resumer resumes them. */
  readonly taskTokens: TaskTokenBroker;
  /** The planning of "Validate async run" over this environment, with nothing written (`--plan`). */
  planRun(event: ValidateAsyncRunEvent): Promise<PlannedAsyncRun>;
  /** One round of the heartbeat sender (the stack runs it on a schedule). */
  sendHeartbeats(): Promise<HeartbeatSummary>;
}

/**
 * Local endpoints have no IAM: whatever role a model names, the local platform reads, writes and
 * publishes for it. So the role check of a reused endpoint always passes here (and warns of nothing).
 */
const PERMISSIVE_ROLE_CHECK = {
  roles: { executionRoleOf: () => Promise.resolve('arn:aws:iam::000000000000:role/local-endpoint') },
  simulator: { simulate: () => Promise.resolve({ status: 'simulated' as const, denied: [] }) },
};

export function createLocalAsyncEnvironment(options: LocalAsyncEnvironmentOptions): LocalAsyncEnvironment {
  const { logger } = options;
  const nowEpochMs = Date.now;
  const store = createLocalStore(options);
  const platform = new LocalAsyncPlatform({
    logger,
    region: LOCAL_REGION,
    ...(options.cooldownTimeScale === undefined ? {} : { cooldownTimeScale: options.cooldownTimeScale }),
  });
  const host = new LocalModelHost({
    store,
    logger,
    asyncPlatform: platform,
    ...(options.availableCpus === undefined ? {} : { availableCpus: options.availableCpus }),
  });
  const tokens = new MemoryTaskTokenStore();
  const taskTokens = new TaskTokenBroker();
  const resumer = new LocalTaskResumer(taskTokens);

  // The notification Lambda: the same core, subscribed to both topics. A throw makes the bus
  // deliver again, as Lambda retries an asynchronous invocation.
  for (const topicArn of Object.values(LOCAL_NOTIFICATION_TOPICS)) {
    platform.notifications.subscribe(topicArn, async ({ messageId, message }) => {
      const summary = await handleAsyncNotifications([{ messageId, message }], {
        store: tokens,
        resumer,
        logger,
        nowEpochMs,
        fullReasons: { store, artifactsBucket: LOCAL_ARTIFACTS_BUCKET },
      });
      throwIfRetryNeeded(summary);
    });
  }

  const stepDependencies: AsyncStepDependencies = {
    store,
    host,
    scaling: platform.scaling,
    tokens,
    resumer,
    invoker: new LocalAsyncInvoker(host),
    observer: platform.observer,
    logger,
    artifactsBucket: LOCAL_ARTIFACTS_BUCKET,
    region: LOCAL_REGION,
    allowFileUris: true,
    notificationTopics: LOCAL_NOTIFICATION_TOPICS,
    reusedEndpointRole: PERMISSIVE_ROLE_CHECK,
    waitTimeoutSeconds: options.waitTimeoutSeconds,
    // What the Wait states are told; the runner shortens the waits themselves (LOCAL_WAIT_MS).
    pollSeconds: 1,
    maxPollSeconds: 1,
    nowEpochMs,
  };
  const handlers = createAsyncStepHandlers(stepDependencies);
  return {
    store,
    host,
    platform,
    tokens,
    taskTokens,
    logger,
    handlers,
    planRun: (event) => planAsyncRun(event, validateAsyncRunDeps(stepDependencies)),
    sendHeartbeats: () =>
      sendAsyncHeartbeats({
        store: tokens,
        resumer,
        host,
        objects: store,
        lostNotificationAfterMs: options.lostNotificationAfterMs ?? LOST_NOTIFICATION_AFTER_MS,
        logger,
        nowEpochMs,
      }),
    async close() {
      await host.shutdown();
      await platform.notifications.idle();
    },
  };
}

export interface LocalAsyncRunOptions extends LocalWorkflowRunOptions {
  readonly environment: LocalAsyncEnvironment;
  /** Multiplies TimeoutSeconds/HeartbeatSeconds of the definition (the runner's). @default 1 */
  readonly timeoutScale?: number;
  /**
   * How often the heartbeat sender runs while the execution does; `null`: never. @default a third
   * of the wait's HeartbeatSeconds (scaled), as the stack's schedule runs three times per heartbeat
   * timeout.
   */
  readonly heartbeatIntervalMs?: number | null;
}

export interface LocalAsyncRunOutcome extends LocalWorkflowOutcome {
  /** The run's plan, once "Validate async run" produced it. */
  readonly plan?: AsyncRunPlan;
}

/**
 * Runs the synthesized async-inference definition over the local environment. A failed execution
 * cleaned up through its own Catch; an aborted or timed-out one did not (its states stop where
 * they are), so then every server is stopped here and the run's clean-up step runs once more. The
 * environment stays open: close it after.
 */
export async function runLocalAsyncInference(options: LocalAsyncRunOptions): Promise<LocalAsyncRunOutcome> {
  const { environment, stateMachine } = options;
  const timeoutScale = options.timeoutScale ?? 1;
  let plan: AsyncRunPlan | undefined;
  const stopHeartbeats = startHeartbeats(environment, heartbeatInterval(stateMachine, timeoutScale, options));
  try {
    const outcome = await runLocalWorkflow(
      {
        ...options,
        onEvent: (event) => {
          plan ??= planOf(event);
          options.onEvent?.(event);
        },
      },
      {
        handlers: environment.handlers,
        logger: environment.logger,
        taskTokens: environment.taskTokens,
        timeoutScale,
        cleanUpStep: 'clean-up-async-run',
        // A failed execution ran its clean-up through its Catch.
        needsCleanUp: (result) => result.status !== 'FAILED',
        // Every queued request fails with the reason (a notification each); waiting tasks are gone anyway.
        stopRunning: (result) => environment.host.stopAllServers(`stopped: run ${result.status}`),
        // Before "Validate async run" produced a plan, nothing was created.
        cleanUpPayload: (result) =>
          plan === undefined ? undefined : { plan, error: { Error: result.status } },
      },
    );
    return { ...outcome, ...(plan === undefined ? {} : { plan }) };
  } finally {
    stopHeartbeats();
  }
}

/** The plan "Validate async run" returned, when `event` is its exit. */
function planOf(event: RunnerEvent): AsyncRunPlan | undefined {
  if (event.type !== 'StateExited' || event.stateName !== AsyncInferenceStates.validateAsyncRun)
    return undefined;
  const output = event.output;
  if (typeof output !== 'object' || output === null || Array.isArray(output)) return undefined;
  return output.plan as unknown as AsyncRunPlan | undefined;
}

function heartbeatInterval(
  stateMachine: ExtractedStateMachine,
  timeoutScale: number,
  options: LocalAsyncRunOptions,
): number | null {
  if (options.heartbeatIntervalMs !== undefined) return options.heartbeatIntervalMs;
  const heartbeats = [...walkStates(stateMachine.definition)]
    .map(({ state }) => state.HeartbeatSeconds)
    .filter((seconds): seconds is number => typeof seconds === 'number');
  if (heartbeats.length === 0) return null;
  return (Math.min(...heartbeats) * 1000 * timeoutScale) / 3;
}

/** Runs the heartbeat sender every `intervalMs` (one round at a time); returns the stop function. */
function startHeartbeats(environment: LocalAsyncEnvironment, intervalMs: number | null): () => void {
  if (intervalMs === null) return () => undefined;
  let round: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (round !== undefined) return;
    round = environment
      .sendHeartbeats()
      .catch((error: unknown) => {
        environment.logger.error('Heartbeat round failed', { error: describeError(error) });
      })
      .finally(() => {
        round = undefined;
      });
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}
