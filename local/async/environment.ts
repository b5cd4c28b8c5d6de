/**
 * Local mode's composition root for the async-inference workflow: the local store, the local model
 * host with its async endpoints, the notification bus with the notification Lambda's core
 * subscribed to both topics, the task-token store, the runner's task-token broker behind the
 * resumer, the invoker, autoscaling and its observer, the heartbeat sender, and the same step
 * handlers the Lambdas call. `runLocalAsyncInference` runs the synthesized async definition over
 * them. The CLI (`local/async-cli.ts`) and the end-to-end tests build on this module.
 */
import { resolve } from 'node:path';
import {
  handleAsyncNotifications,
  throwIfRetryNeeded,
} from '../../handlers/async/handle-async-notification.js';
import { LOST_NOTIFICATION_AFTER_MS } from '../../handlers/async/lost-notification.js';
import { type HeartbeatSummary, sendAsyncHeartbeats } from '../../handlers/async/send-async-heartbeats.js';
import type { AsyncRunPlan } from '../../handlers/contracts/async-state.js';
import { describeError } from '../../handlers/contracts/errors.js';
import { s3Uri } from '../../handlers/contracts/object-uri.js';
import type { Logger } from '../../handlers/ports.js';
import { FileObjectStore } from '../adapters/file-object-store.js';
import { LocalModelHost } from '../adapters/local-model-host.js';
import { createAsyncStepHandlers } from '../async-step-handlers.js';
import {
  LOCAL_ARTIFACTS_BUCKET,
  LOCAL_REGION,
  LOCAL_RETRY_INTERVAL_MS,
  LOCAL_WAIT_MS,
} from '../local-environment.js';
import { walkStates } from '../runner/asl.js';
import {
  type ExtractedStateMachine,
  type JsonValue,
  type RunnerEvent,
  type RunResult,
  runStateMachine,
  TaskTokenBroker,
} from '../runner/index.js';
import { LOCAL_ACCOUNT_ID } from '../runner/local-arns.js';
import { accountOutcome, type LocalCleanUp, type StepHandler, stepTaskResolver } from '../step-handlers.js';
import { LocalAsyncPlatform } from './async-platform.js';
import { LocalAsyncInvoker } from './local-async-invoker.js';
import { LocalTaskResumer } from './local-task-resumer.js';
import { MemoryTaskTokenStore } from './memory-task-token-store.js';

/** The topics local async endpoints publish to; the notification handler listens to both. */
export const LOCAL_NOTIFICATION_TOPICS = {
  successTopicArn: `arn:aws:sns:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:mso-async-success`,
  errorTopicArn: `arn:aws:sns:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:mso-async-errors`,
} as const;

export interface LocalAsyncEnvironmentOptions {
  /** Folder of the local buckets (`<storeDir>/<bucket>/<key>`). @default '.local-store' */
  readonly storeDir?: string;
  /** Folder of the runs (the artifacts bucket's `runs/` prefix). @default 'runs' */
  readonly runsDir?: string;
  readonly logger: Logger;
  /** Cores the model servers may use. @default os.availableParallelism() */
  readonly availableCpus?: number;
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

export interface LocalAsyncEnvironment {
  readonly store: FileObjectStore;
  readonly host: LocalModelHost;
  readonly platform: LocalAsyncPlatform;
  readonly tokens: MemoryTaskTokenStore;
  /** Issues the runner's task tokens; the resumer resumes them. */
  readonly taskTokens: TaskTokenBroker;
  readonly logger: Logger;
  readonly handlers: Readonly<Record<string, StepHandler>>;
  /** One round of the heartbeat sender (the stack runs it on a schedule). */
  sendHeartbeats(): Promise<HeartbeatSummary>;
  /** Stops every model server and forgets every resource. Idempotent. */
  close(): Promise<void>;
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
  const store = new FileObjectStore({
    rootDir: options.storeDir ?? '.local-store',
    mounts: { [s3Uri(LOCAL_ARTIFACTS_BUCKET, 'runs/')]: resolve(options.runsDir ?? 'runs') },
  });
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

  const handlers = createAsyncStepHandlers({
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
  });
  return {
    store,
    host,
    platform,
    tokens,
    taskTokens,
    logger,
    handlers,
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

export interface LocalAsyncRunOptions {
  readonly environment: LocalAsyncEnvironment;
  readonly stateMachine: ExtractedStateMachine;
  /** The run input, as Step Functions would receive it (JSON). */
  readonly input: JsonValue;
  readonly runId: string;
  /** Aborting it aborts the execution (Ctrl-C); clean-up then runs here. */
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: RunnerEvent) => void;
  /** Replaces step handlers by step name (tests). */
  readonly overrides?: Readonly<Record<string, StepHandler>>;
  /** Multiplies TimeoutSeconds/HeartbeatSeconds of the definition (the runner's). @default 1 */
  readonly timeoutScale?: number;
  /**
   * How often the heartbeat sender runs while the execution does; `null`: never. @default a third
   * of the wait's HeartbeatSeconds (scaled), as the stack's schedule runs three times per heartbeat
   * timeout.
   */
  readonly heartbeatIntervalMs?: number | null;
}

export interface LocalAsyncRunOutcome {
  readonly result: RunResult;
  /** The run's plan, once "Validate async run" produced it. */
  readonly plan?: AsyncRunPlan;
  /** Set when the execution was aborted or timed out and this module ran the clean-up step itself. */
  readonly cleanUp?: LocalCleanUp;
}

/**
 * Runs the synthesized async-inference definition over the local environment. A failed execution
 * cleaned up through its own Catch; an aborted or timed-out one did not (its states stop where
 * they are), so then every server is stopped here and the run's clean-up step runs once more. The
 * environment stays open: close it after.
 */
export async function runLocalAsyncInference(options: LocalAsyncRunOptions): Promise<LocalAsyncRunOutcome> {
  const { environment, stateMachine, runId } = options;
  const handlers = { ...environment.handlers, ...options.overrides };
  const timeoutScale = options.timeoutScale ?? 1;
  let plan: AsyncRunPlan | undefined;
  const stopHeartbeats = startHeartbeats(environment, heartbeatInterval(stateMachine, timeoutScale, options));
  try {
    const result = await runStateMachine({
      definition: stateMachine.definition,
      resources: stateMachine.resources,
      stateMachineName: stateMachine.name,
      input: options.input,
      executionName: runId,
      taskTokens: environment.taskTokens,
      resolveTask: stepTaskResolver(handlers),
      waitTimeOverrideMs: LOCAL_WAIT_MS,
      retryIntervalOverrideMs: LOCAL_RETRY_INTERVAL_MS,
      timeoutScale,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      onEvent: (event) => {
        plan ??= planOf(event);
        options.onEvent?.(event);
      },
    });
    if (result.status === 'SUCCEEDED' || result.status === 'FAILED') {
      return { result, ...(plan === undefined ? {} : { plan }) };
    }
    const cleanUp = await cleanUpAfter(result, environment, plan, handlers['clean-up-async-run']);
    return { result, ...(plan === undefined ? {} : { plan }), cleanUp };
  } finally {
    stopHeartbeats();
  }
}

/** The plan "Validate async run" returned, when `event` is its exit. */
function planOf(event: RunnerEvent): AsyncRunPlan | undefined {
  if (event.type !== 'StateExited' || event.stateName !== 'Validate async run') return undefined;
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

async function cleanUpAfter(
  result: Exclude<RunResult, { status: 'SUCCEEDED' | 'FAILED' }>,
  environment: LocalAsyncEnvironment,
  plan: AsyncRunPlan | undefined,
  cleanUp: StepHandler | undefined,
): Promise<LocalAsyncRunOutcome['cleanUp']> {
  // Every queued request fails with the reason (a notification each); waiting tasks are gone anyway.
  await environment.host.stopAllServers(`stopped: run ${result.status}`);
  if (plan === undefined) return { ok: true };
  if (cleanUp === undefined) return { ok: false, error: 'no clean-up-async-run step handler' };
  try {
    const account = await cleanUp({ plan, error: { Error: result.status } }, new AbortController().signal);
    return accountOutcome(account);
  } catch (error) {
    environment.logger.error('Clean-up after the run failed', {
      runId: plan.runId,
      error: describeError(error),
    });
    return { ok: false, error: describeError(error) };
  }
}
