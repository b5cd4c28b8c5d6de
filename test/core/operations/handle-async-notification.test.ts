import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import {
  type HandleAsyncNotificationDeps,
  handleAsyncNotifications,
  type NotificationSummary,
  readSnsRecords,
  STATE_FAILURE_REASON_BYTES,
  throwIfRetryNeeded,
  truncateForState,
} from '../../../core/operations/handle-async-notification.js';
import type { AsyncInferenceFailureCause } from '../../../core/contracts/async-state.js';
import type { TaskResumer } from '../../../core/async/ports.js';
import { ErrorNames, RequestRefusedError, TransientServiceError } from '../../../core/contracts/errors.js';
import { MemoryObjectStore } from '../../support/memory-object-store.js';
import { CapturingLogger, FakeStepFunctions, MemoryTokenStore } from '../async/support/fakes.js';
import { completedMessage, failedMessage } from '../async/support/messages.js';

const STORED_AT_MS = Date.parse('2026-05-23T03:23:00.000Z');
const NOW_MS = Date.parse('2026-05-23T03:23:30.000Z');
const ID = 'mso-nightly-1a2b3c4d-item-0';

let store: MemoryTokenStore;
let stepFunctions: FakeStepFunctions;
let logger: CapturingLogger;
let token: string;

beforeEach(async () => {
  store = new MemoryTokenStore();
  stepFunctions = new FakeStepFunctions();
  logger = new CapturingLogger();
  token = stepFunctions.issueToken();
  await store.putIfAbsent({
    inferenceId: ID,
    taskToken: token,
    runId: 'nightly',
    itemIndex: 0,
    inputLocation: 's3://mso-async-input/inputs/0001.json',
    storedAtEpochMs: STORED_AT_MS,
    expiresAtEpochSeconds: STORED_AT_MS / 1000 + 7200,
  });
});

function deps(overrides: Partial<HandleAsyncNotificationDeps> = {}): HandleAsyncNotificationDeps {
  return { store, resumer: stepFunctions, logger, nowEpochMs: () => NOW_MS, ...overrides };
}

function handle(...messages: string[]): Promise<NotificationSummary> {
  return handleAsyncNotifications(
    messages.map((message, index) => ({ messageId: `sns-${index}`, message })),
    deps(),
  );
}

const NOTHING: NotificationSummary = {
  resumedSuccess: 0,
  resumedFailure: 0,
  duplicate: 0,
  unknownInferenceId: 0,
  malformed: 0,
  taskGone: 0,
  refused: 0,
  retryLater: 0,
};

describe('handleAsyncNotifications', () => {
  it('resumes the task with the output location and the timings, then deletes the token', async () => {
    // Act
    const summary = await handle(completedMessage(ID));

    // Assert
    expect(summary).toEqual({ ...NOTHING, resumedSuccess: 1 });
    expect(stepFunctions.resumptions.get(token)).toEqual([
      {
        kind: 'success',
        output: {
          inferenceId: ID,
          status: 'Completed',
          inputLocation: 's3://mso-async-input/inputs/0001.json',
          outputLocation: 's3://mso-async-output/results/2f4dcf85-01b8-418c-8c93-2b30fcdd1ab8.out',
          timeInSageMakerMs: 12_226,
          totalMs: 30_000,
          invokedAtEpochMs: STORED_AT_MS,
          finishedAtEpochMs: Date.parse('2026-05-23T03:23:21.814Z'),
        },
      },
    ]);
    expect(store.records.get(ID)).not.toHaveProperty('taskToken');
    expect(store.records.get(ID)?.resumedAtEpochMs).toBe(NOW_MS);
  });

  it('fails the task with InferenceFailedError and a JSON cause naming the reason', async () => {
    const summary = await handle(
      failedMessage(ID, { failureLocation: 's3://mso-async-output/failures/1.out' }),
    );

    expect(summary).toEqual({ ...NOTHING, resumedFailure: 1 });
    const [resumption] = stepFunctions.resumptions.get(token) ?? [];
    expect(resumption).toMatchObject({ kind: 'failure', error: ErrorNames.inferenceFailed });
    expect(resumption?.kind === 'failure' && JSON.parse(resumption.cause)).toEqual({
      inferenceId: ID,
      invocationStatus: 'Failed',
      failureReason:
        'ClientError: Received server error (500) from model. See the SageMaker Endpoint logs in your account for more information.',
      failureLocation: 's3://mso-async-output/failures/1.out',
      inputLocation: 's3://mso-async-input/inputs/0001.json',
      timeInSageMakerMs: 153,
      totalMs: 30_000,
      invokedAtEpochMs: STORED_AT_MS,
      finishedAtEpochMs: Date.parse('2026-05-23T03:23:10.608Z'),
    });
  });

  it('takes the resume time as the finish time when SageMaker gives no eventTime', async () => {
    // Arrange
    const message = JSON.parse(completedMessage(ID)) as Record<string, unknown>;
    delete message.eventTime;

    // Act
    await handle(JSON.stringify(message));

    // Assert
    const [resumption] = stepFunctions.resumptions.get(token) ?? [];
    expect(resumption?.kind === 'success' && resumption.output).toMatchObject({
      timeInSageMakerMs: null,
      invokedAtEpochMs: STORED_AT_MS,
      finishedAtEpochMs: NOW_MS,
    });
  });

  it('fails the task when the status is neither Completed nor Failed', async () => {
    await handle(completedMessage(ID, { invocationStatus: 'Expired' }));

    const [resumption] = stepFunctions.resumptions.get(token) ?? [];
    expect(resumption?.kind === 'failure' && JSON.parse(resumption.cause)).toMatchObject({
      invocationStatus: 'Expired',
      failureReason: 'Unexpected invocationStatus "Expired", expected Completed or Failed',
    });
  });

  it('resumes once when SNS delivers the same notification twice, counting the second as a duplicate', async () => {
    // Act
    const first = await handle(completedMessage(ID));
    const second = await handle(completedMessage(ID));

    // Assert
    expect(first).toEqual({ ...NOTHING, resumedSuccess: 1 });
    expect(second).toEqual({ ...NOTHING, duplicate: 1 });
    expect(stepFunctions.resumptions.get(token)).toHaveLength(1);
  });

  it('deletes the token on redelivery when a crash came between the resume and the delete', async () => {
    // Arrange: the first delivery resumed the task, then died before deleting the token.
    await stepFunctions.sendTaskSuccess(token, { inferenceId: ID });

    // Act
    const summary = await handle(completedMessage(ID));

    // Assert
    expect(summary).toEqual({ ...NOTHING, taskGone: 1 });
    expect(stepFunctions.resumptions.get(token)).toHaveLength(1);
    expect(store.records.get(ID)).not.toHaveProperty('taskToken');
  });

  it('counts a notification whose task already timed out, and deletes its token', async () => {
    stepFunctions.endTask(token);

    const summary = await handle(completedMessage(ID));

    expect(summary).toEqual({ ...NOTHING, taskGone: 1 });
    expect(logger.lines.join('\n')).toContain('"reason":"TaskTimedOut"');
    expect(store.records.get(ID)).not.toHaveProperty('taskToken');
  });

  it('counts and logs an unknown inference id without resuming anything', async () => {
    const summary = await handle(completedMessage('someone-else-42'));

    expect(summary).toEqual({ ...NOTHING, unknownInferenceId: 1 });
    expect(logger.messages()).toEqual(['Notification for an unknown inference id']);
    expect(stepFunctions.resumptions.size).toBe(0);
  });

  it('counts a malformed message without throwing, so SNS does not redeliver a poison message', async () => {
    const summary = await handle('not json at all', JSON.stringify({ hello: 'world' }));

    expect(summary).toEqual({ ...NOTHING, malformed: 2 });
    expect(stepFunctions.resumptions.size).toBe(0);
  });

  it('fails the task at once when a malformed message still names a known inference id', async () => {
    const summary = await handle(completedMessage(ID, { responseParameters: {} }));

    expect(summary).toEqual({ ...NOTHING, malformed: 1 });
    const [resumption] = stepFunctions.resumptions.get(token) ?? [];
    expect(resumption).toMatchObject({ kind: 'failure', error: 'InferenceFailedError' });
    expect(resumption?.kind === 'failure' && JSON.parse(resumption.cause)).toMatchObject({
      invocationStatus: 'Malformed',
      failureReason: expect.stringContaining('outputLocation is missing'),
    });
  });

  it('leaves a newer attempt token in place when the notification resumed an older one', async () => {
    // Arrange: between the read and the delete, a retried attempt stored its own token.
    const newer = stepFunctions.issueToken();
    const realConsume = store.consumeToken.bind(store);
    store.consumeToken = async (inferenceId, taskToken, at) => {
      const current = await store.get(inferenceId);
      if (current !== undefined) store.records.set(inferenceId, { ...current, taskToken: newer });
      return realConsume(inferenceId, taskToken, at);
    };

    // Act
    await handle(completedMessage(ID));

    // Assert
    expect(store.records.get(ID)?.taskToken).toBe(newer);
  });

  it('counts a record to retry when Step Functions is unavailable, and keeps the token for the redelivery', async () => {
    // Arrange
    const throttled: TaskResumer = {
      sendTaskSuccess: () =>
        Promise.reject(new TransientServiceError('Step Functions SendTaskSuccess failed')),
      sendTaskFailure: () => Promise.reject(new Error('unused')),
      sendTaskHeartbeat: () => Promise.reject(new Error('unused')),
    };

    // Act
    const summary = await handleAsyncNotifications(
      [{ messageId: 'sns-0', message: completedMessage(ID) }],
      deps({ resumer: throttled }),
    );

    // Assert
    expect(summary).toEqual({ ...NOTHING, retryLater: 1 });
    expect(store.records.get(ID)?.taskToken).toBe(token);
    expect(() => {
      throwIfRetryNeeded(summary);
    }).toThrow(TransientServiceError);
  });

  it('never writes a task token into a log line, whatever the outcome', async () => {
    // Arrange: every path that logs, including an error whose message quotes the token.
    const leaky: TaskResumer = {
      sendTaskSuccess: () => Promise.reject(new Error(`Invalid Token: '${token}'`)),
      sendTaskFailure: (taskToken, error, cause) => stepFunctions.sendTaskFailure(taskToken, error, cause),
      sendTaskHeartbeat: (taskToken) => stepFunctions.sendTaskHeartbeat(taskToken),
    };
    const messages = [completedMessage(ID), 'garbage', completedMessage('unknown-id')];

    // Act
    await handleAsyncNotifications(
      messages.map((message, index) => ({ messageId: `m${index}`, message })),
      deps({ resumer: leaky }),
    );
    await handle(failedMessage(ID), failedMessage(ID));

    // Assert
    const output = logger.lines.join('\n');
    expect(logger.lines.length).toBeGreaterThanOrEqual(5);
    expect(output).toContain('<task token>');
    expect(output).not.toContain(token.slice(0, 20));
    expect(output).not.toContain(token.slice(-40));
  });
});

describe('handleAsyncNotifications: store errors that retrying cannot fix', () => {
  it('counts a 1 MB inferenceId as malformed without any store call, and asks for no retry', async () => {
    // Arrange
    const get = jest.spyOn(store, 'get');

    // Act
    const summary = await handle(completedMessage('i'.repeat(1024 * 1024)));

    // Assert
    expect(summary).toEqual({ ...NOTHING, malformed: 1 });
    expect(get).not.toHaveBeenCalled();
    expect(() => {
      throwIfRetryNeeded(summary);
    }).not.toThrow();
    expect(logger.lines.join('\n')).toContain('has 1048576 characters, expected at most 64');
  });

  it.each(['', ' leading-space', 'tab\tinside', 'naïve-id'])(
    'counts an inferenceId SageMaker never assigns (%j) as malformed without any store call',
    async (inferenceId) => {
      // Arrange
      const get = jest.spyOn(store, 'get');

      // Act
      const summary = await handle(JSON.stringify({ ...JSON.parse(completedMessage(ID)), inferenceId }));

      // Assert
      expect(summary).toEqual({ ...NOTHING, malformed: 1 });
      expect(get).not.toHaveBeenCalled();
    },
  );

  it('fails only the record whose request the store refuses, resumes the others and asks for no retry', async () => {
    // Arrange: the store refuses the first record's read as DynamoDB refuses a ValidationException.
    const get = store.get.bind(store);
    jest
      .spyOn(store, 'get')
      .mockImplementation((inferenceId) =>
        inferenceId === 'refused-id'
          ? Promise.reject(
              new RequestRefusedError('DynamoDB GetItem for inference refused-id refused the request'),
            )
          : get(inferenceId),
      );

    // Act
    const summary = await handle(completedMessage('refused-id'), completedMessage(ID));

    // Assert
    expect(summary).toEqual({ ...NOTHING, refused: 1, resumedSuccess: 1 });
    expect(stepFunctions.resumptions.get(token)).toEqual([expect.objectContaining({ kind: 'success' })]);
    expect(() => {
      throwIfRetryNeeded(summary);
    }).not.toThrow();
    expect(logger.lines.join('\n')).toContain(
      'Notification refused by the token store; this record alone fails',
    );
  });

  it('keeps the retry path for a transient store error beside a refused one', async () => {
    // Arrange
    jest
      .spyOn(store, 'get')
      .mockRejectedValueOnce(new RequestRefusedError('refused'))
      .mockRejectedValueOnce(new TransientServiceError('DynamoDB GetItem throttled'));

    // Act
    const summary = await handle(completedMessage('refused-id'), completedMessage(ID));

    // Assert
    expect(summary).toEqual({ ...NOTHING, refused: 1, retryLater: 1 });
    expect(() => {
      throwIfRetryNeeded(summary);
    }).toThrow(TransientServiceError);
  });
});

describe('throwIfRetryNeeded', () => {
  it('does nothing when every record was processed', () => {
    expect(() => {
      throwIfRetryNeeded({ ...NOTHING, resumedSuccess: 3, duplicate: 1 });
    }).not.toThrow();
  });
});

describe('handleAsyncNotifications: no token reaches a log line, whatever port failed', () => {
  const foreignToken = `AQCEAAAAKgAAAAMAAAAAAAAAAZ${'Pq7/Rs8='.repeat(80)}`;

  it.each<[string, 'get' | 'consumeToken']>([
    ['the token store, reading the record', 'get'],
    ['the token store, consuming the token', 'consumeToken'],
  ])('redacts a token in an error of %s', async (_port, method) => {
    // Arrange: the store's own error echoes a record holding this token and another one.
    jest
      .spyOn(store, method)
      .mockRejectedValue(
        new Error(`ProvisionedThroughputExceeded on item {"taskToken":"${token}","other":"${foreignToken}"}`),
      );

    // Act
    const summary = await handle(completedMessage(ID));

    // Assert
    expect(summary).toEqual({ ...NOTHING, retryLater: 1 });
    const logged = JSON.stringify(logger.lines);
    expect(logged).toContain('ProvisionedThroughputExceeded');
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(foreignToken);
  });

  it('redacts a token in an error of the task resumer', async () => {
    // Arrange
    jest
      .spyOn(stepFunctions, 'sendTaskSuccess')
      .mockRejectedValue(new Error(`InvalidToken: ${token} is not a valid token`));

    // Act
    await handle(completedMessage(ID));

    // Assert
    const logged = JSON.stringify(logger.lines);
    expect(logged).toContain('InvalidToken');
    expect(logged).not.toContain(token);
  });
});

describe('readSnsRecords', () => {
  it('counts a record without Message (or without Sns) as malformed and goes on with the batch', async () => {
    // Arrange
    const event = {
      Records: [
        { Sns: { MessageId: 'sns-no-message' } },
        { EventSource: 'aws:sns' },
        { Sns: { MessageId: 'sns-ok', Message: completedMessage(ID) } },
      ],
    };

    // Act
    const summary = await handleAsyncNotifications(readSnsRecords(event), deps());

    // Assert
    expect(summary).toEqual({ ...NOTHING, malformed: 2, resumedSuccess: 1 });
    expect(logger.lines.filter((line) => line.includes('Malformed notification ignored'))).toEqual([
      expect.stringContaining('"messageId":"sns-no-message"'),
      expect.stringContaining('"messageId":"(record 1)"'),
    ]);
  });

  it('reads an event without Records as one malformed message', () => {
    expect(readSnsRecords({ detail: {} })).toEqual([
      { messageId: '(event without Records)', message: undefined },
    ]);
    expect(readSnsRecords(null)).toEqual([{ messageId: '(event without Records)', message: undefined }]);
  });
});

describe('handleAsyncNotifications: failure reasons too long for the state', () => {
  it('keeps the whole reason in S3 and fails the task with it truncated to 1 KB of state', async () => {
    // Prepare: 8,000 characters, quotes and line breaks included (escaped twice in the state).
    const reason = 'ClientError: "bad input"\n'.repeat(400).slice(0, 8000);
    const objects = new MemoryObjectStore();
    const fullReasons = { store: objects, artifactsBucket: 'mso-artifacts' };

    // Act
    await handleAsyncNotifications(
      [{ messageId: 'sns-0', message: failedMessage(ID, { failureReason: reason }) }],
      {
        ...deps(),
        fullReasons,
      },
    );

    // Assert
    const uri = `s3://mso-artifacts/runs/nightly/async/failure-reasons/${ID}.txt`;
    expect(new TextDecoder().decode(objects.objects.get(uri)?.body)).toBe(reason);
    const [resumption] = stepFunctions.resumptions.get(token) ?? [];
    const cause = (
      resumption?.kind === 'failure' ? JSON.parse(resumption.cause) : {}
    ) as AsyncInferenceFailureCause;
    expect(cause.failureReasonUri).toBe(uri);
    expect(cause.failureReason).toBe(truncateForState(reason, STATE_FAILURE_REASON_BYTES));
    expect(reason.startsWith(cause.failureReason.slice(0, -1))).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(JSON.stringify(cause.failureReason)))).toBeLessThanOrEqual(1024);
  });
});

describe('handleAsyncNotifications: a notification of an earlier invocation under the same id', () => {
  const OUTPUT = 's3://mso-async-output/results/2f4dcf85-01b8-418c-8c93-2b30fcdd1ab8.out';
  const EARLIER_OUTPUT = 's3://mso-async-output/results/0c1d2e3f-aaaa-4bbb-8ccc-000000000001.out';

  async function receiptIs(outputLocation: string, failureLocation?: string): Promise<void> {
    await store.recordReceipt(ID, token, {
      inferenceId: ID,
      outputLocation,
      ...(failureLocation === undefined ? {} : { failureLocation }),
    });
  }

  it('resumes the task when the notification names the output location its invocation returned', async () => {
    // Arrange
    await receiptIs(OUTPUT);

    // Act
    const summary = await handle(completedMessage(ID));

    // Assert
    expect(summary).toEqual({ ...NOTHING, resumedSuccess: 1 });
  });

  it("refuses another invocation's output (an earlier run of the same name): the task keeps waiting", async () => {
    // Arrange: run B's record holds B's receipt; run A's notification is delivered again.
    await receiptIs(OUTPUT);

    // Act
    const summary = await handle(
      completedMessage(ID, {
        responseParameters: { contentType: 'application/json', outputLocation: EARLIER_OUTPUT },
      }),
    );

    // Assert
    expect(summary).toEqual({ ...NOTHING, duplicate: 1 });
    expect(stepFunctions.isWaiting(token)).toBe(true);
    expect(stepFunctions.resumptions.size).toBe(0);
    expect(store.records.get(ID)?.taskToken).toBe(token);
    expect(logger.lines).toContainEqual(
      JSON.stringify({
        level: 'WARN',
        message: 'Notification of an earlier invocation under this id ignored',
        messageId: 'sns-0',
        inferenceId: ID,
        runId: 'nightly',
        itemIndex: 0,
        problem: `its outputLocation is ${EARLIER_OUTPUT}, expected ${OUTPUT} (this attempt's)`,
      }),
    );
  });

  it("refuses another invocation's failure object", async () => {
    // Arrange
    await receiptIs(OUTPUT, 's3://mso-async-output/failures/b.out');

    // Act
    const summary = await handle(
      failedMessage(ID, { failureLocation: 's3://mso-async-output/failures/a.out' }),
    );

    // Assert
    expect(summary).toEqual({ ...NOTHING, duplicate: 1 });
    expect(stepFunctions.isWaiting(token)).toBe(true);
  });

  it('resumes the task when the notification names the same output object in another URI form', async () => {
    // Arrange
    await receiptIs(
      'https://mso-async-output.s3.us-east-1.amazonaws.com/results/2f4dcf85-01b8-418c-8c93-2b30fcdd1ab8.out',
    );

    // Act
    const summary = await handle(completedMessage(ID));

    // Assert
    expect(summary).toEqual({ ...NOTHING, resumedSuccess: 1 });
  });

  it('resumes the task when the endpoint names differ only in case', async () => {
    // Arrange
    const record = store.records.get(ID);
    store.records.set(ID, { ...(record as NonNullable<typeof record>), endpointName: 'MSO-Async-Endpoint' });

    // Act
    const summary = await handle(completedMessage(ID));

    // Assert
    expect(summary).toEqual({ ...NOTHING, resumedSuccess: 1 });
  });

  it('refuses a notification from another endpoint', async () => {
    // Arrange
    const record = store.records.get(ID);
    store.records.set(ID, { ...(record as NonNullable<typeof record>), endpointName: 'mso-b-ep-async' });

    // Act
    const summary = await handle(completedMessage(ID));

    // Assert
    expect(summary).toEqual({ ...NOTHING, duplicate: 1 });
    expect(stepFunctions.isWaiting(token)).toBe(true);
  });

  it('refuses a failure SageMaker received before this attempt stored its token, when no location tells', async () => {
    // Arrange: the failure names no failure object; SageMaker received it a minute before.
    const receivedAt = new Date(STORED_AT_MS - 60_000).toISOString();

    // Act
    const summary = await handle(failedMessage(ID, { receivedTime: receivedAt, eventTime: receivedAt }));

    // Assert
    expect(summary).toEqual({ ...NOTHING, duplicate: 1 });
    expect(stepFunctions.isWaiting(token)).toBe(true);
  });

  it('accepts a notification received within the clock-skew tolerance before the token was stored', async () => {
    // Arrange: a fast model, the notification before the receipt; clocks 500 ms apart.
    const receivedAt = new Date(STORED_AT_MS - 500).toISOString();

    // Act
    const summary = await handle(completedMessage(ID, { receivedTime: receivedAt }));

    // Assert
    expect(summary).toEqual({ ...NOTHING, resumedSuccess: 1 });
  });
});
