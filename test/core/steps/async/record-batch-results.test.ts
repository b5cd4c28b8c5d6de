import { beforeEach, describe, expect, it } from '@jest/globals';
import { batchResultsUri } from '../../../../core/async/batch-results.js';
import { recordBatchResults, toItemResult } from '../../../../core/steps/async/record-batch-results.js';
import {
  type AsyncInferenceFailureCause,
  type AsyncInferenceResult,
  type BatchItem,
  ItemStatuses,
  type IterationOutput,
} from '../../../../core/contracts/async-state.js';
import { handleAsyncNotifications } from '../../../../core/operations/handle-async-notification.js';
import { ErrorNames, TransientServiceError } from '../../../../core/contracts/errors.js';
import { MAX_TOKEN_COUNT_READ_BYTES } from '../../../../core/steps/async/record-batch-results.js';
import { MemoryObjectStore } from '../../../support/memory-object-store.js';
import { CapturingLogger, FakeStepFunctions, MemoryTokenStore } from '../../async/support/fakes.js';
import { failedMessage } from '../../async/support/messages.js';

const RUN_ID = 'nightly-2026-05-23';
const RUN_PREFIX = `s3://mso-artifacts/runs/${RUN_ID}/`;
const INVOKED_MS = Date.parse('2026-05-23T03:20:00.000Z');

let store: MemoryObjectStore;
let logger: CapturingLogger;

beforeEach(() => {
  store = new MemoryObjectStore();
  logger = new CapturingLogger();
});

function item(itemIndex: number): BatchItem {
  return { itemIndex, inputLocation: `s3://mso-artifacts/inputs/${String(itemIndex).padStart(4, '0')}.json` };
}

function completed(itemIndex: number): IterationOutput {
  const result: AsyncInferenceResult = {
    inferenceId: `mso-nightly-item-${itemIndex}`,
    status: 'Completed',
    inputLocation: item(itemIndex).inputLocation,
    outputLocation: `s3://mso-artifacts/runs/${RUN_ID}/async/output/${itemIndex}.out`,
    timeInSageMakerMs: 1200,
    totalMs: 1500,
    invokedAtEpochMs: INVOKED_MS,
    finishedAtEpochMs: INVOKED_MS + 1400,
  };
  return { item: item(itemIndex), result };
}

function failedWith(itemIndex: number, Error: string, Cause?: string): IterationOutput {
  return { item: item(itemIndex), error: { Error, ...(Cause === undefined ? {} : { Cause }) } };
}

function inferenceFailure(
  itemIndex: number,
  overrides: Partial<AsyncInferenceFailureCause> = {},
): IterationOutput {
  const cause: AsyncInferenceFailureCause = {
    inferenceId: `mso-nightly-item-${itemIndex}`,
    invocationStatus: 'Failed',
    failureReason: 'ClientError: Received server error (500) from model.',
    failureLocation: `s3://mso-artifacts/runs/${RUN_ID}/async/failures/${itemIndex}-error.out`,
    inputLocation: item(itemIndex).inputLocation,
    timeInSageMakerMs: 153,
    totalMs: 900,
    invokedAtEpochMs: INVOKED_MS,
    finishedAtEpochMs: INVOKED_MS + 800,
    ...overrides,
  };
  return failedWith(itemIndex, ErrorNames.inferenceFailed, JSON.stringify(cause));
}

describe('toItemResult', () => {
  it('keeps the result of a completed input, with its times', () => {
    // Act
    const result = toItemResult(completed(3));

    // Assert
    expect(result).toEqual({
      itemIndex: 3,
      inputLocation: item(3).inputLocation,
      status: ItemStatuses.completed,
      inferenceId: 'mso-nightly-item-3',
      outputLocation: `s3://mso-artifacts/runs/${RUN_ID}/async/output/3.out`,
      timeInSageMakerMs: 1200,
      totalMs: 1500,
      invokedAtEpochMs: INVOKED_MS,
      finishedAtEpochMs: INVOKED_MS + 1400,
    });
  });

  it("reads an inference failure's JSON cause: the status, the reason, the failure location, the times", () => {
    // Act
    const result = toItemResult(inferenceFailure(4));

    // Assert
    expect(result).toEqual({
      itemIndex: 4,
      inputLocation: item(4).inputLocation,
      status: ItemStatuses.failed,
      inferenceId: 'mso-nightly-item-4',
      failureReason: 'Failed: ClientError: Received server error (500) from model.',
      failureLocation: `s3://mso-artifacts/runs/${RUN_ID}/async/failures/4-error.out`,
      timeInSageMakerMs: 153,
      totalMs: 900,
      invokedAtEpochMs: INVOKED_MS,
      finishedAtEpochMs: INVOKED_MS + 800,
    });
  });

  it('leaves the failure location out when SageMaker wrote none', () => {
    // Act
    const result = toItemResult(inferenceFailure(4, { invocationStatus: 'Expired', failureLocation: null }));

    // Assert
    expect(result).not.toHaveProperty('failureLocation');
    expect(result.failureReason).toBe('Expired: ClientError: Received server error (500) from model.');
  });

  it.each([['States.Timeout'], ['States.HeartbeatTimeout']])('counts %s as timed out', (error) => {
    // Act
    const result = toItemResult(failedWith(5, error, 'The task timed out'));

    // Assert
    expect(result).toEqual({
      itemIndex: 5,
      inputLocation: item(5).inputLocation,
      status: ItemStatuses.timedOut,
      failureReason: `${error}: no notification arrived before the wait's timeout`,
      timeInSageMakerMs: null,
      totalMs: null,
    });
  });

  it('keeps the name and cause of any other error', () => {
    // Act
    const result = toItemResult(
      failedWith(6, ErrorNames.endpointFailed, 'Endpoint mso-x-ep-async is gone; no result will arrive'),
    );

    // Assert
    expect(result).toEqual({
      itemIndex: 6,
      inputLocation: item(6).inputLocation,
      status: ItemStatuses.failed,
      failureReason: 'EndpointFailedError: Endpoint mso-x-ep-async is gone; no result will arrive',
      timeInSageMakerMs: null,
      totalMs: null,
    });
  });

  it("keeps a Lambda error's message, not its stack trace", () => {
    // Arrange: the Cause Step Functions gives a Catch when the invoke Lambda threw.
    const cause = JSON.stringify({
      errorType: 'ValidationError',
      errorMessage: 'Endpoint mso-x-ep-async of account 123456789012 not found.',
      trace: [
        'ValidationError: Endpoint mso-x-ep-async of account 123456789012 not found.',
        '    at de_ValidationErrorRes',
      ],
    });

    // Act
    const result = toItemResult(failedWith(7, 'ValidationError', cause));

    // Assert
    expect(result.failureReason).toBe(
      'ValidationError: Endpoint mso-x-ep-async of account 123456789012 not found.',
    );
  });

  it('keeps an InferenceFailedError whose cause is not the JSON document as a plain failure', () => {
    // Act
    const result = toItemResult(failedWith(8, ErrorNames.inferenceFailed, 'not json'));

    // Assert
    expect(result).toMatchObject({
      status: ItemStatuses.failed,
      failureReason: 'InferenceFailedError: not json',
    });
    expect(result).not.toHaveProperty('inferenceId');
  });

  it('says so when the error has neither name nor cause', () => {
    // Act
    const result = toItemResult({ item: item(9), error: {} });

    // Assert
    expect(result.failureReason).toBe('Error: no cause given');
  });
});

describe('recordBatchResults', () => {
  const event = {
    plan: { runId: RUN_ID, runPrefixUri: RUN_PREFIX },
    batch: { batchIndex: 3, firstItemIndex: 120, itemCount: 5 },
    results: [
      completed(120),
      completed(121),
      inferenceFailure(122),
      failedWith(123, 'States.HeartbeatTimeout'),
      failedWith(124, 'Lambda.ServiceException', 'Rate exceeded'),
    ],
  };

  it('returns only the counts of each outcome', async () => {
    // Act
    const counts = await recordBatchResults(event, { store, logger });

    // Assert
    expect(counts).toEqual({ batchIndex: 3, completed: 2, failed: 2, timedOut: 1 });
  });

  it("writes the batch's normalized results under the run prefix, named by batch index", async () => {
    // Act
    await recordBatchResults(event, { store, logger });

    // Assert
    const uri = `${RUN_PREFIX}async/results/batch-0003.json`;
    expect(batchResultsUri(RUN_PREFIX, 3)).toBe(uri);
    const written = store.objects.get(uri);
    expect(written?.contentType).toBe('application/json');
    const document = JSON.parse(new TextDecoder().decode(written?.body)) as {
      batchIndex: number;
      results: { itemIndex: number; status: string }[];
    };
    expect(document.batchIndex).toBe(3);
    expect(document.results.map((result) => [result.itemIndex, result.status])).toEqual([
      [120, 'Completed'],
      [121, 'Completed'],
      [122, 'Failed'],
      [123, 'TimedOut'],
      [124, 'Failed'],
    ]);
  });

  it('records an empty batch as zero counts', async () => {
    // Act
    const counts = await recordBatchResults({ ...event, results: [] }, { store, logger });

    // Assert
    expect(counts).toEqual({ batchIndex: 3, completed: 0, failed: 0, timedOut: 0 });
  });
});

describe('recordBatchResults of a generative run', () => {
  const plan = { runId: RUN_ID, runPrefixUri: RUN_PREFIX, generative: { format: 'tgi' as const } };
  const batch = { batchIndex: 0, firstItemIndex: 120, itemCount: 3 };
  const outputOf = (itemIndex: number): string =>
    `s3://mso-artifacts/runs/${RUN_ID}/async/output/${itemIndex}.out`;
  const tgiAnswer = (generatedTokens: number): string =>
    JSON.stringify([
      { generated_text: 'x', details: { generated_tokens: generatedTokens, input_length: 4 } },
    ]);

  function recorded(): Record<string, unknown>[] {
    const body = store.objects.get(batchResultsUri(RUN_PREFIX, 0))?.body;
    return (JSON.parse(new TextDecoder().decode(body)) as { results: Record<string, unknown>[] }).results;
  }

  it("keeps each completed result's output and input tokens, read from its answer", async () => {
    // Prepare
    store.seed(outputOf(120), tgiAnswer(31)).seed(outputOf(121), tgiAnswer(5));

    // Act
    await recordBatchResults(
      { plan, batch, results: [completed(120), completed(121), inferenceFailure(122)] },
      { store, logger },
    );

    // Assert: the failed input has no output to read.
    const results = recorded();
    expect(
      results.map((r) => [r['itemIndex'], r['outputTokens'], r['inputTokens'], r['tokensNote']]),
    ).toEqual([
      [120, 31, 4, undefined],
      [121, 5, 4, undefined],
      [122, undefined, undefined, undefined],
    ]);
  });

  it('reads no output when the run is not generative', async () => {
    // Prepare
    store.seed(outputOf(120), tgiAnswer(31));

    // Act
    await recordBatchResults(
      { plan: { runId: RUN_ID, runPrefixUri: RUN_PREFIX }, batch, results: [completed(120)] },
      { store, logger },
    );

    // Assert
    expect(recorded()[0]?.['outputTokens']).toBeUndefined();
  });

  it('says why a result was not counted: no counts, too large, gone', async () => {
    // Prepare
    store
      .seed(outputOf(120), JSON.stringify([{ generated_text: 'x' }]))
      .seed(outputOf(121), new Uint8Array(MAX_TOKEN_COUNT_READ_BYTES + 1));

    // Act
    await recordBatchResults(
      { plan, batch, results: [completed(120), completed(121), completed(122)] },
      { store, logger },
    );

    // Assert
    expect(recorded().map((r) => r['tokensNote'])).toEqual([
      'the output has no details.generated_tokens: send "parameters": {"details": true} in each input to have the container count them',
      `the output is ${MAX_TOKEN_COUNT_READ_BYTES + 1} bytes, more than the ${MAX_TOKEN_COUNT_READ_BYTES} read to count tokens`,
      'the output object is gone: nothing to count',
    ]);
  });

  it('keeps the batch when an output cannot be read, with the reason on that result', async () => {
    // Prepare: S3 refuses the read (e.g. a key the Lambda may not read).
    store.seed(outputOf(120), tgiAnswer(3));
    const denying = Object.assign(Object.create(store) as MemoryObjectStore, {
      getBytes: () => Promise.reject(Object.assign(new Error('Access Denied'), { name: 'AccessDenied' })),
    });

    // Act
    const counts = await recordBatchResults(
      { plan, batch, results: [completed(120)] },
      { store: denying, logger },
    );

    // Assert
    expect(counts.completed).toBe(1);
    expect(recorded()[0]?.['tokensNote']).toBe('the output could not be read: AccessDenied: Access Denied');
  });

  it("fails when a read is throttled, for the state's retries to read again", async () => {
    // Prepare
    store.seed(outputOf(120), tgiAnswer(3));
    const throttled = Object.assign(Object.create(store) as MemoryObjectStore, {
      getBytes: () => Promise.reject(new TransientServiceError('S3 GetObject throttled (SlowDown)')),
    });

    // Act
    const recording = recordBatchResults(
      { plan, batch, results: [completed(120)] },
      { store: throttled, logger },
    );

    // Assert: nothing written, the retry writes the whole batch.
    await expect(recording).rejects.toBeInstanceOf(TransientServiceError);
    expect(store.objects.has(batchResultsUri(RUN_PREFIX, 0))).toBe(false);
  });
});

describe('a batch of 40 failures with 8,000-character reasons', () => {
  it('keeps the batch state under 256 KB and the whole reasons in the results object', async () => {
    // Prepare: 40 waiting tasks failed by the notification Lambda, as "Record failed input" keeps them.
    const tokens = new MemoryTokenStore();
    const stepFunctions = new FakeStepFunctions();
    const reason = (i: number): string => `ClientError: "input ${i}" rejected\n`.repeat(300).slice(0, 8000);
    const items = Array.from({ length: 40 }, (_, i) => item(i));
    const taskTokens = await Promise.all(
      items.map(async (batchItem) => {
        const taskToken = stepFunctions.issueToken();
        await tokens.putIfAbsent({
          inferenceId: `id-${batchItem.itemIndex}`,
          taskToken,
          runId: RUN_ID,
          itemIndex: batchItem.itemIndex,
          inputLocation: batchItem.inputLocation,
          storedAtEpochMs: INVOKED_MS,
          expiresAtEpochSeconds: INVOKED_MS / 1000 + 7200,
        });
        return taskToken;
      }),
    );
    await handleAsyncNotifications(
      items.map((batchItem) => ({
        messageId: `sns-${batchItem.itemIndex}`,
        message: failedMessage(`id-${batchItem.itemIndex}`, { failureReason: reason(batchItem.itemIndex) }),
      })),
      {
        store: tokens,
        resumer: stepFunctions,
        logger,
        nowEpochMs: () => INVOKED_MS + 1000,
        fullReasons: { store, artifactsBucket: 'mso-artifacts' },
      },
    );
    const results: IterationOutput[] = items.map((batchItem, i) => {
      const [resumption] = stepFunctions.resumptions.get(taskTokens[i] ?? '') ?? [];
      const Cause = resumption?.kind === 'failure' ? resumption.cause : '';
      return { item: batchItem, error: { Error: ErrorNames.inferenceFailed, Cause } };
    });
    const batch = { batchIndex: 0, firstItemIndex: 0, itemCount: 40 };
    const plan = { runId: RUN_ID, runPrefixUri: RUN_PREFIX };

    // Act
    await recordBatchResults({ plan, batch, results }, { store, logger });

    // Assert: the state "Record batch results" receives (plan, batch, items, results) fits.
    const stateBytes = Buffer.byteLength(JSON.stringify({ plan, batch, items, results }));
    expect(stateBytes).toBeLessThan(262_144);
    const recorded = JSON.parse(
      new TextDecoder().decode(store.objects.get(batchResultsUri(RUN_PREFIX, 0))?.body),
    ) as { results: { failureReason: string }[] };
    expect(recorded.results.map((r) => r.failureReason)).toEqual(items.map((_, i) => `Failed: ${reason(i)}`));
  });
});
