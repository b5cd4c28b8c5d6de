/**
 * The async-inference workflow where AWS can fail it, run locally: the synthesized definition on
 * the local runner, a local async endpoint with the example model, and the same step handlers,
 * notification handler and heartbeat sender as on AWS. Covered: an endpoint deleted from outside
 * mid-batch, a notification lost after SageMaker wrote the output, and a notification of an
 * earlier run of the same name delivered again while the new run waits.
 */
import { describe, expect, it, jest } from '@jest/globals';
import {
  handleAsyncNotifications,
  type NotificationSummary,
} from '../../../core/operations/handle-async-notification.js';
import { deriveInferenceId } from '../../../core/steps/async/invoke-async-inference.js';
import type { AsyncRunSummary, InvokeAsyncInferenceEvent } from '../../../core/contracts/async-state.js';
import type { NewTaskTokenRecord } from '../../../core/async/ports.js';
import {
  LOCAL_NOTIFICATION_TOPICS,
  type LocalAsyncEnvironment,
  runLocalAsyncInference,
} from '../../../local/environment/async-environment.js';
import { LocalTaskResumer } from '../../../local/async/local-task-resumer.js';
import type { StepHandler } from '../../../local/environment/step-handlers.js';
import { silentLogger } from '../../support/memory-object-store.js';
import { itemsOf, localAsyncSandbox, samples } from './support/async-run.js';

const MODEL_URI = 's3://local-artifacts/models/robust/model.tar.gz';
const INPUT = (name: string): string => `s3://local-artifacts/inputs/robust/${name}.bin`;

const sandbox = localAsyncSandbox('async-robustness-', MODEL_URI);

async function prepare(name: string, lostNotificationAfterMs?: number): Promise<LocalAsyncEnvironment> {
  const environment = await sandbox.prepare(
    name,
    lostNotificationAfterMs === undefined ? {} : { lostNotificationAfterMs },
  );
  // A pair fills a batch of 2 and runs at once; a single sample waits for a partner the server's
  // batching delay long (runInput's `batchDelayMs`): an input still waiting when the test acts.
  await environment.store.putBytes(INPUT('pair'), samples(2));
  await environment.store.putBytes(INPUT('single'), samples(1));
  return environment;
}

/** `batchDelayMs`: how long a single sample waits for a partner before it runs alone. */
function runInput(
  inputs: readonly string[],
  maxConcurrency: number,
  batchDelayMs = 5000,
): Record<string, unknown> {
  return {
    name: 'robustness',
    endpoint: {
      modelDataUrl: MODEL_URI,
      framework: 'onnx',
      image: 'local',
      instanceType: 'ml.c5.large',
      maxInstanceCount: 1,
      environment: {
        MODEL_SERVER_MAX_BATCH_SIZE: '2',
        MODEL_SERVER_MAX_BATCH_DELAY_MS: String(batchDelayMs),
        MODEL_SERVER_INTRA_OP_THREADS: '1',
      },
    },
    inputs: inputs.map(INPUT),
    contentType: 'application/octet-stream',
    invocationTimeoutSeconds: 60,
    requestTtlSeconds: 60,
    maxConcurrency,
  };
}

async function waitingTasks(env: LocalAsyncEnvironment): Promise<NewTaskTokenRecord[]> {
  const waiting: NewTaskTokenRecord[] = [];
  for await (const record of env.tokens.listWaiting()) waiting.push(record);
  return waiting;
}

/** The step handler "Invoke async inference" calls, wrapped: `before` runs first, `after` last. */
function aroundInvoke(
  env: LocalAsyncEnvironment,
  hooks: {
    before?: (event: InvokeAsyncInferenceEvent) => Promise<void>;
    after?: (event: InvokeAsyncInferenceEvent) => Promise<void>;
  },
): Record<string, StepHandler> {
  const invoke = env.handlers['invoke-async-inference'];
  if (invoke === undefined) throw new Error('no invoke-async-inference handler');
  return {
    'invoke-async-inference': async (payload, signal) => {
      const event = payload as InvokeAsyncInferenceEvent;
      await hooks.before?.(event);
      const receipt = await invoke(payload, signal);
      await hooks.after?.(event);
      return receipt;
    },
  };
}

describe('the async-inference workflow where AWS can fail it', () => {
  it('stops at the first input after its endpoint was deleted mid-batch: run FAILED, autoscaling deregistered, nothing left', async () => {
    // Prepare: six inputs, one at a time; the endpoint is deleted from outside before item 2 is sent.
    const env = await prepare('deleted');
    const invoke = env.handlers['invoke-async-inference'];
    if (invoke === undefined) throw new Error('no invoke-async-inference handler');
    const outcomes: [number, string][] = [];
    const overrides: Record<string, StepHandler> = {
      'invoke-async-inference': async (payload, signal) => {
        const { itemIndex, endpointName } = payload as InvokeAsyncInferenceEvent;
        if (itemIndex === 2) await env.host.deleteEndpoint(endpointName);
        try {
          const receipt = await invoke(payload, signal);
          outcomes.push([itemIndex, 'queued']);
          return receipt;
        } catch (error) {
          outcomes.push([itemIndex, error instanceof Error ? error.name : 'Error']);
          throw error;
        }
      },
    };

    // Act
    const outcome = await runLocalAsyncInference({
      environment: env,
      stateMachine: sandbox.workflows.asyncInference,
      input: runInput(['pair', 'pair', 'pair', 'pair', 'pair', 'pair'], 1) as never,
      runId: 'robust-deleted',
      overrides,
    });

    // Assert
    expect(outcome.result).toMatchObject({ status: 'FAILED', error: 'EndpointFailedError' });
    const endpointName = outcome.plan?.endpoint.endpointName ?? '';
    const cause = JSON.parse((outcome.result as { cause: string }).cause) as { errorMessage: string };
    expect(cause.errorMessage).toBe(
      `InvokeEndpointAsync on endpoint ${endpointName} for ${INPUT('pair')}: Endpoint ${endpointName} of account 000000000000 not found. Expected the run's endpoint in service; it was deleted outside the run, so no further input is sent. Start the run again once the endpoint exists`,
    );
    expect(outcomes.slice(0, 3)).toEqual([
      [0, 'queued'],
      [1, 'queued'],
      [2, 'EndpointFailedError'],
    ]);
    // On AWS a failed Map starts no further iteration. The local engine (p-limit) still starts the
    // iterations it had queued, and each is refused at once: nothing is queued after the deletion.
    expect(outcomes.slice(3).filter(([, result]) => result !== 'EndpointFailedError')).toEqual([]);
    expect(env.platform.scaling.policyOf(endpointName, 'AllTraffic')).toBeUndefined();
    expect(await env.host.listRunResources('robust-deleted', 'mso-')).toEqual({
      endpoints: [],
      endpointConfigs: [],
      models: [],
      compilationJobs: [],
      optimizationJobs: [],
    });
    expect(await waitingTasks(env)).toEqual([]);
  }, 90_000);

  it('resumes a task whose notification was lost from the output SageMaker wrote, within a heartbeat round', async () => {
    // Prepare: the notification handler cannot read the token store for item 1, on every
    // delivery; the heartbeat timeout (900 s × 30/900 = 30 s) is far beyond a heartbeat round
    // (every 500 ms, looking for the output of tasks waiting over 1 s).
    const env = await prepare('lost', 1_000);
    const lostId = deriveInferenceId('robust-lost', 1);
    const get = env.tokens.get.bind(env.tokens);
    jest
      .spyOn(env.tokens, 'get')
      .mockImplementation((inferenceId) =>
        inferenceId === lostId ? Promise.reject(new Error('token table unavailable')) : get(inferenceId),
      );
    const startedAt = Date.now();

    // Act
    const outcome = await runLocalAsyncInference({
      environment: env,
      stateMachine: sandbox.workflows.asyncInference,
      input: runInput(['pair', 'pair'], 10) as never,
      runId: 'robust-lost',
      timeoutScale: 30 / 900,
      heartbeatIntervalMs: 500,
    });

    // Assert
    expect(outcome.result.status).toBe('SUCCEEDED');
    expect(Date.now() - startedAt).toBeLessThan(30_000);
    const summary = (outcome.result as { output: unknown }).output as AsyncRunSummary;
    expect(summary).toMatchObject({ inputs: 2, completed: 2, failed: 0, timedOut: 0 });
    const [, lost] = await itemsOf(env, summary);
    // No SageMaker times: the task was resumed from the object, not from the notification.
    expect(lost).toMatchObject({ status: 'Completed', timeInSageMakerMs: null });
    const output = JSON.parse(
      new TextDecoder().decode(await env.store.getBytes(lost?.outputLocation ?? '')),
    ) as {
      predictions: number[][];
    };
    expect(output.predictions).toHaveLength(2);
    const undelivered = env.platform.notifications.undelivered();
    expect(
      undelivered.map((entry) => JSON.parse(entry.notification.message) as { inferenceId: string }),
    ).toEqual([expect.objectContaining({ inferenceId: lostId })]);
    expect(await waitingTasks(env)).toEqual([]);
  }, 90_000);

  it('ignores a notification of an earlier run of the same name delivered again while the new run waits', async () => {
    // Prepare: run A sends the input and keeps its notification (a batching delay of 50 ms: only
    // run B needs its input to wait).
    const env = await prepare('reused');
    const notifications: string[] = [];
    env.platform.notifications.subscribe(LOCAL_NOTIFICATION_TOPICS.successTopicArn, ({ message }) => {
      notifications.push(message);
    });
    const first = await runLocalAsyncInference({
      environment: env,
      stateMachine: sandbox.workflows.asyncInference,
      input: runInput(['single'], 1, 50) as never,
      runId: 'robust-reused',
    });
    expect(first.result.status).toBe('SUCCEEDED');
    const [earlier] = notifications;
    if (earlier === undefined) throw new Error('run A published no notification');
    const resumer = new LocalTaskResumer(env.taskTokens);
    let redelivery: NotificationSummary | undefined;
    // Run B, same name and input: once its input is queued (2 s before its result, far more than
    // the redelivery takes), A's notification arrives again.
    const overrides = aroundInvoke(env, {
      after: async () => {
        redelivery = await handleAsyncNotifications([{ messageId: 'redelivered', message: earlier }], {
          store: env.tokens,
          resumer,
          logger: silentLogger,
          nowEpochMs: Date.now,
        });
      },
    });

    // Act
    const second = await runLocalAsyncInference({
      environment: env,
      stateMachine: sandbox.workflows.asyncInference,
      input: runInput(['single'], 1, 2000) as never,
      runId: 'robust-reused',
      overrides,
    });

    // Assert
    expect(redelivery).toEqual({
      resumedSuccess: 0,
      resumedFailure: 0,
      duplicate: 1,
      unknownInferenceId: 0,
      malformed: 0,
      taskGone: 0,
      refused: 0,
      retryLater: 0,
    });
    expect(second.result.status).toBe('SUCCEEDED');
    const summary = (second.result as { output: unknown }).output as AsyncRunSummary;
    const [item] = await itemsOf(env, summary);
    const earlierOutput = (JSON.parse(earlier) as { responseParameters: { outputLocation: string } })
      .responseParameters.outputLocation;
    expect(item?.status).toBe('Completed');
    expect(item?.outputLocation).not.toBe(earlierOutput);
    expect(item?.outputLocation).toBe(
      (JSON.parse(notifications[1] ?? '{}') as { responseParameters?: { outputLocation?: string } })
        .responseParameters?.outputLocation,
    );
  }, 90_000);
});
