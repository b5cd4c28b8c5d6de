import { beforeEach, describe, expect, it } from '@jest/globals';
import type { TaskResumer } from '../../../core/async/ports.js';
import {
  type HeartbeatSummary,
  sendAsyncHeartbeats,
} from '../../../core/operations/send-async-heartbeats.js';
import { ErrorNames, TransientServiceError } from '../../../core/contracts/errors.js';
import type { EndpointDescription } from '../../../core/ports/index.js';
import { asyncEndpointDescription, ScriptedSageMaker } from '../async/support/async-fakes.js';
import { MemoryObjectStore } from '../../support/memory-object-store.js';
import { CapturingLogger, FakeStepFunctions, MemoryTokenStore } from '../async/support/fakes.js';

const STORED_AT_MS = Date.parse('2026-05-23T03:00:00.000Z');
const NOW_MS = Date.parse('2026-05-23T03:40:00.000Z');
const LIVE = 'mso-nightly-ep-async';
const OTHER = 'mso-weekly-ep-async';
const NOTHING: HeartbeatSummary = {
  heartbeats: 0,
  failedEndpointGone: 0,
  taskGone: 0,
  resumedFromOutput: 0,
  failedFromFailureObject: 0,
  errors: 0,
};
/** Tasks waiting longer than this (NOW − STORED_AT is 40 minutes) have their output looked for. */
const LOOK_AFTER_MS = 2 * 60_000;
const OUTPUT = (itemIndex: number): string => `s3://mso-artifacts/runs/nightly/async/output/${itemIndex}.out`;
const FAILURE = (itemIndex: number): string =>
  `s3://mso-artifacts/runs/nightly/async/failures/${itemIndex}-error.out`;

let store: MemoryTokenStore;
let stepFunctions: FakeStepFunctions;
let sagemaker: ScriptedSageMaker;
let logger: CapturingLogger;
let objects: MemoryObjectStore;

beforeEach(() => {
  objects = new MemoryObjectStore();
  store = new MemoryTokenStore();
  stepFunctions = new FakeStepFunctions();
  sagemaker = new ScriptedSageMaker()
    .answerDescribe(LIVE, asyncEndpointDescription(LIVE))
    .answerDescribe(OTHER, asyncEndpointDescription(OTHER));
  logger = new CapturingLogger();
});

/** A task waiting for item `itemIndex`'s notification (`null`: a record naming no endpoint); returns its token. */
async function waiting(
  itemIndex: number,
  endpointName: string | null = LIVE,
  options: { receipt?: boolean } = {},
): Promise<string> {
  const taskToken = stepFunctions.issueToken();
  await store.putIfAbsent({
    inferenceId: inferenceId(itemIndex),
    taskToken,
    runId: 'nightly',
    itemIndex,
    inputLocation: `s3://mso-artifacts/inputs/${itemIndex}.json`,
    ...(endpointName === null ? {} : { endpointName }),
    storedAtEpochMs: STORED_AT_MS,
    expiresAtEpochSeconds: STORED_AT_MS / 1000 + 48 * 3600,
  });
  if (options.receipt === true) {
    await store.recordReceipt(inferenceId(itemIndex), taskToken, {
      inferenceId: inferenceId(itemIndex),
      outputLocation: OUTPUT(itemIndex),
      failureLocation: FAILURE(itemIndex),
    });
  }
  return taskToken;
}

function inferenceId(itemIndex: number): string {
  return `mso-nightly-1a2b3c4d-item-${itemIndex}`;
}

function send(resumer: TaskResumer = stepFunctions): Promise<HeartbeatSummary> {
  return sendAsyncHeartbeats({
    store,
    resumer,
    host: sagemaker,
    objects,
    lostNotificationAfterMs: LOOK_AFTER_MS,
    logger,
    nowEpochMs: () => NOW_MS,
  });
}

function endpointIs(endpointName: string, description: EndpointDescription | undefined): void {
  sagemaker.answerDescribe(endpointName, description);
}

describe('sendAsyncHeartbeats', () => {
  it('heartbeats a task whose endpoint is in service, leaving its token in place', async () => {
    // Arrange
    const token = await waiting(0);

    // Act
    const summary = await send();

    // Assert
    expect(summary).toEqual({ ...NOTHING, heartbeats: 1 });
    expect(stepFunctions.heartbeats).toEqual([token]);
    expect(stepFunctions.isWaiting(token)).toBe(true);
    expect(store.records.get(inferenceId(0))?.taskToken).toBe(token);
  });

  it.each([['Updating'], ['SystemUpdating'], ['RollingBack'], ['UpdateRollbackFailed']])(
    'heartbeats a task whose endpoint is %s: it still serves',
    async (status) => {
      // Arrange
      const token = await waiting(0);
      endpointIs(LIVE, asyncEndpointDescription(LIVE, { status: status as EndpointDescription['status'] }));

      // Act
      const summary = await send();

      // Assert
      expect(summary).toEqual({ ...NOTHING, heartbeats: 1 });
      expect(stepFunctions.isWaiting(token)).toBe(true);
    },
  );

  it('fails the task with EndpointFailedError when its endpoint was deleted, and consumes the token', async () => {
    // Arrange
    const token = await waiting(0);
    endpointIs(LIVE, undefined);

    // Act
    const summary = await send();

    // Assert
    expect(summary).toEqual({ ...NOTHING, failedEndpointGone: 1 });
    expect(stepFunctions.resumptions.get(token)).toEqual([
      {
        kind: 'failure',
        error: ErrorNames.endpointFailed,
        cause: `Endpoint ${LIVE} is gone; no result will arrive for inference ${inferenceId(0)}`,
      },
    ]);
    expect(store.records.get(inferenceId(0))).not.toHaveProperty('taskToken');
    expect(store.records.get(inferenceId(0))?.resumedAtEpochMs).toBe(NOW_MS);
  });

  it("fails the task with the endpoint's failure reason when its endpoint failed", async () => {
    // Arrange
    const token = await waiting(0);
    endpointIs(
      LIVE,
      asyncEndpointDescription(LIVE, { status: 'Failed', failureReason: 'Instance capacity error' }),
    );

    // Act
    await send();

    // Assert
    expect(stepFunctions.resumptions.get(token)).toEqual([
      {
        kind: 'failure',
        error: 'EndpointFailedError',
        cause: `Endpoint ${LIVE} is Failed: Instance capacity error; no result will arrive for inference ${inferenceId(0)}`,
      },
    ]);
  });

  it.each([['Deleting'], ['OutOfService']])('fails the task when its endpoint is %s', async (status) => {
    // Arrange
    const token = await waiting(0);
    endpointIs(LIVE, asyncEndpointDescription(LIVE, { status: status as EndpointDescription['status'] }));

    // Act
    const summary = await send();

    // Assert
    expect(summary).toEqual({ ...NOTHING, failedEndpointGone: 1 });
    expect(stepFunctions.isWaiting(token)).toBe(false);
  });

  it('consumes the token of a task that no longer waits', async () => {
    // Arrange: the wait timed out (or the execution ended) before the notification came.
    const token = await waiting(0);
    stepFunctions.endTask(token);

    // Act
    const summary = await send();

    // Assert
    expect(summary).toEqual({ ...NOTHING, taskGone: 1 });
    expect(store.records.get(inferenceId(0))).not.toHaveProperty('taskToken');
  });

  it('counts a task that no longer waits as gone, not as failed, when its endpoint is gone too', async () => {
    // Arrange
    const token = await waiting(0);
    stepFunctions.endTask(token);
    endpointIs(LIVE, undefined);

    // Act
    const summary = await send();

    // Assert
    expect(summary).toEqual({ ...NOTHING, taskGone: 1 });
    expect(stepFunctions.resumptions.size).toBe(0);
    expect(store.records.get(inferenceId(0))).not.toHaveProperty('taskToken');
  });

  it('heartbeats a record written before records named their endpoint, without describing anything', async () => {
    // Arrange
    await waiting(0, null);

    // Act
    const summary = await send();

    // Assert
    expect(summary).toEqual({ ...NOTHING, heartbeats: 1 });
    expect(sagemaker.describes).toEqual([]);
  });

  it('visits only records that still hold a token', async () => {
    // Arrange: item 0 was resumed already (a tombstone), item 1 waits.
    const resumed = await waiting(0);
    await store.consumeToken(inferenceId(0), resumed, NOW_MS - 1000);
    const token = await waiting(1);

    // Act
    const summary = await send();

    // Assert
    expect(summary).toEqual({ ...NOTHING, heartbeats: 1 });
    expect(stepFunctions.heartbeats).toEqual([token]);
  });

  it('describes each endpoint once per round, however many tasks wait on it', async () => {
    // Arrange
    for (const index of [0, 1, 2]) await waiting(index, LIVE);
    for (const index of [3, 4]) await waiting(index, OTHER);

    // Act
    const summary = await send();

    // Assert
    expect(summary).toEqual({ ...NOTHING, heartbeats: 5 });
    expect([...sagemaker.describes].sort()).toEqual([LIVE, OTHER]);
  });

  it('fails every task of a gone endpoint and heartbeats the others in the same round', async () => {
    // Arrange
    const [a, b] = [await waiting(0, LIVE), await waiting(1, LIVE)];
    const c = await waiting(2, OTHER);
    endpointIs(LIVE, undefined);

    // Act
    const summary = await send();

    // Assert
    expect(summary).toEqual({ ...NOTHING, heartbeats: 1, failedEndpointGone: 2 });
    expect([stepFunctions.isWaiting(a), stepFunctions.isWaiting(b), stepFunctions.isWaiting(c)]).toEqual([
      false,
      false,
      true,
    ]);
  });

  it('counts an error, keeps the token for the next round and goes on with the other tasks', async () => {
    // Arrange: Step Functions throttles the first heartbeat only.
    const first = await waiting(0);
    const second = await waiting(1);
    let calls = 0;
    const throttledOnce: TaskResumer = {
      sendTaskSuccess: (token, output) => stepFunctions.sendTaskSuccess(token, output),
      sendTaskFailure: (token, error, cause) => stepFunctions.sendTaskFailure(token, error, cause),
      sendTaskHeartbeat: (token) => {
        calls += 1;
        return calls === 1
          ? Promise.reject(new TransientServiceError('SendTaskHeartbeat throttled'))
          : stepFunctions.sendTaskHeartbeat(token);
      },
    };

    // Act
    const summary = await send(throttledOnce);

    // Assert
    expect(summary).toEqual({ ...NOTHING, heartbeats: 1, errors: 1 });
    expect(store.records.get(inferenceId(0))?.taskToken).toBe(first);
    expect(stepFunctions.heartbeats).toEqual([second]);
    expect(logger.messages()).toContain('Heartbeat not sent; the next round retries');
  });

  it('counts an error for each task of an endpoint that could not be described', async () => {
    // Arrange
    await waiting(0);
    await waiting(1);
    sagemaker.describeEndpoint = () =>
      Promise.reject(new TransientServiceError('DescribeEndpoint throttled'));

    // Act
    const summary = await send();

    // Assert
    expect(summary).toEqual({ ...NOTHING, errors: 2 });
    expect(stepFunctions.heartbeats).toEqual([]);
  });

  it('never writes a task token into a log line, even when an error message quotes it', async () => {
    // Arrange: every path that logs: heartbeat, endpoint gone, task gone, and an error quoting the token.
    const quoted = await waiting(0, OTHER);
    await waiting(1, LIVE);
    const gone = await waiting(2, OTHER);
    stepFunctions.endTask(gone);
    const failing = await waiting(3, 'mso-deleted-ep-async');
    const leaky: TaskResumer = {
      sendTaskSuccess: (token, output) => stepFunctions.sendTaskSuccess(token, output),
      sendTaskFailure: (token, error, cause) => stepFunctions.sendTaskFailure(token, error, cause),
      sendTaskHeartbeat: (token) =>
        token === quoted
          ? Promise.reject(new Error(`Invalid Token: '${token}'`))
          : stepFunctions.sendTaskHeartbeat(token),
    };

    // Act
    const summary = await send(leaky);

    // Assert
    expect(summary).toEqual({ ...NOTHING, heartbeats: 1, failedEndpointGone: 1, taskGone: 1, errors: 1 });
    const output = logger.lines.join('\n');
    expect(output).toContain('<task token>');
    expect(output).toContain('"message":"Waiting task failed: its endpoint is gone"');
    for (const token of [quoted, gone, failing]) {
      expect(output).not.toContain(token.slice(0, 20));
      expect(output).not.toContain(token.slice(-40));
    }
  });

  it('logs the round summary', async () => {
    // Arrange
    await waiting(0);

    // Act
    await send();

    // Assert
    expect(logger.lines).toContainEqual(
      JSON.stringify({
        level: 'INFO',
        message: 'Heartbeats sent',
        heartbeats: 1,
        failedEndpointGone: 0,
        taskGone: 0,
        resumedFromOutput: 0,
        failedFromFailureObject: 0,
        errors: 0,
      }),
    );
  });
  describe('a lost notification', () => {
    it('resumes a late task with the output SageMaker wrote, and consumes its token', async () => {
      // Arrange
      const token = await waiting(0, LIVE, { receipt: true });
      objects.seed(OUTPUT(0), '{"predictions":[[1]]}');

      // Act
      const summary = await send();

      // Assert
      expect(summary).toEqual({ ...NOTHING, resumedFromOutput: 1 });
      expect(stepFunctions.resumptions.get(token)).toEqual([
        {
          kind: 'success',
          output: {
            inferenceId: inferenceId(0),
            status: 'Completed',
            inputLocation: 's3://mso-artifacts/inputs/0.json',
            outputLocation: OUTPUT(0),
            timeInSageMakerMs: null,
            totalMs: 40 * 60_000,
            invokedAtEpochMs: STORED_AT_MS,
            finishedAtEpochMs: NOW_MS,
          },
        },
      ]);
      expect(store.records.get(inferenceId(0))).toMatchObject({ resumedAtEpochMs: NOW_MS });
      expect(store.records.get(inferenceId(0))?.taskToken).toBeUndefined();
      expect(stepFunctions.heartbeats).toEqual([]);
    });

    it('fails a late task with InferenceFailedError when SageMaker wrote a failure object', async () => {
      // Arrange
      const token = await waiting(0, LIVE, { receipt: true });
      objects.seed(FAILURE(0), '{"error":"bad input"}');

      // Act
      const summary = await send();

      // Assert
      expect(summary).toEqual({ ...NOTHING, failedFromFailureObject: 1 });
      const [resumption] = stepFunctions.resumptions.get(token) ?? [];
      expect(resumption).toMatchObject({ kind: 'failure', error: ErrorNames.inferenceFailed });
      expect(JSON.parse((resumption as { cause: string }).cause)).toEqual({
        inferenceId: inferenceId(0),
        invocationStatus: 'Failed',
        failureReason: `The model answered with an error, kept at ${FAILURE(0)}; SageMaker's notification did not arrive, so the heartbeat sender found the failure object 2400 s after the invocation`,
        failureLocation: FAILURE(0),
        inputLocation: 's3://mso-artifacts/inputs/0.json',
        timeInSageMakerMs: null,
        totalMs: 40 * 60_000,
        invokedAtEpochMs: STORED_AT_MS,
        finishedAtEpochMs: NOW_MS,
      });
    });

    it('resumes from the output even when the endpoint is gone since', async () => {
      // Arrange
      const token = await waiting(0, LIVE, { receipt: true });
      objects.seed(OUTPUT(0), '{}');
      endpointIs(LIVE, undefined);

      // Act
      const summary = await send();

      // Assert
      expect(summary).toEqual({ ...NOTHING, resumedFromOutput: 1 });
      expect(stepFunctions.resumptions.get(token)?.map((r) => r.kind)).toEqual(['success']);
    });

    it('heartbeats a late task whose output is not written yet', async () => {
      // Arrange
      const token = await waiting(0, LIVE, { receipt: true });

      // Act
      const summary = await send();

      // Assert
      expect(summary).toEqual({ ...NOTHING, heartbeats: 1 });
      expect(stepFunctions.heartbeats).toEqual([token]);
    });

    it('does not look before the task has waited lostNotificationAfterMs', async () => {
      // Arrange: stored one minute before now, with its output already there.
      const token = await waiting(0, LIVE, { receipt: true });
      const record = store.records.get(inferenceId(0));
      if (record === undefined) throw new Error('no record');
      store.records.set(inferenceId(0), { ...record, storedAtEpochMs: NOW_MS - 60_000 });
      objects.seed(OUTPUT(0), '{}');

      // Act
      const summary = await send();

      // Assert
      expect(summary).toEqual({ ...NOTHING, heartbeats: 1 });
      expect(stepFunctions.isWaiting(token)).toBe(true);
    });

    it('heartbeats a task whose record has no output location (its invocation had not returned)', async () => {
      // Arrange
      const token = await waiting(0);

      // Act
      const summary = await send();

      // Assert
      expect(summary).toEqual({ ...NOTHING, heartbeats: 1 });
      expect(stepFunctions.heartbeats).toEqual([token]);
    });

    it('heartbeats the task when the output cannot be looked for, with a warning', async () => {
      // Arrange
      const token = await waiting(0, LIVE, { receipt: true });
      objects.head = () =>
        Promise.reject(Object.assign(new Error('Access Denied'), { name: 'AccessDenied' }));

      // Act
      const summary = await send();

      // Assert
      expect(summary).toEqual({ ...NOTHING, heartbeats: 1 });
      expect(stepFunctions.heartbeats).toEqual([token]);
      expect(logger.messages()).toContain(
        'Could not look for the result of a late task; heartbeating it instead',
      );
    });

    it('counts a task resumed meanwhile by its notification as gone', async () => {
      // Arrange
      const token = await waiting(0, LIVE, { receipt: true });
      objects.seed(OUTPUT(0), '{}');
      stepFunctions.endTask(token);

      // Act
      const summary = await send();

      // Assert
      expect(summary).toEqual({ ...NOTHING, taskGone: 1 });
      expect(store.records.get(inferenceId(0))?.taskToken).toBeUndefined();
    });
  });
});
