import { beforeEach, describe, expect, it } from '@jest/globals';
import {
  deriveInferenceId,
  invokeAsyncInference,
  RECORD_GRACE_SECONDS,
} from '../../../../core/steps/async/invoke-async-inference.js';
import type { InvokeAsyncInferenceEvent } from '../../../../core/contracts/async-state.js';
import { EndpointFailedError, InferenceIdInUseError } from '../../../../core/contracts/errors.js';
import {
  CapturingLogger,
  FakeAsyncInvoker,
  FakeStepFunctions,
  MemoryTokenStore,
} from '../../async/support/fakes.js';

const NOW_MS = Date.parse('2026-05-23T03:00:00.000Z');

let store: MemoryTokenStore;
let stepFunctions: FakeStepFunctions;
let invoker: FakeAsyncInvoker;
let logger: CapturingLogger;

beforeEach(() => {
  store = new MemoryTokenStore();
  stepFunctions = new FakeStepFunctions();
  invoker = new FakeAsyncInvoker();
  logger = new CapturingLogger();
});

function event(
  taskToken: string,
  overrides: Partial<InvokeAsyncInferenceEvent> = {},
): InvokeAsyncInferenceEvent {
  return {
    taskToken,
    runId: 'nightly-2026-05-23',
    itemIndex: 3,
    inputLocation: 's3://mso-async-input/inputs/0003.json',
    endpointName: 'mso-async-endpoint',
    contentType: 'application/json',
    invocationTimeoutSeconds: 900,
    requestTtlSeconds: 1800,
    waitTimeoutSeconds: 3600,
    ...overrides,
  };
}

function invoke(taskToken: string, overrides: Partial<InvokeAsyncInferenceEvent> = {}) {
  return invokeAsyncInference(event(taskToken, overrides), {
    store,
    resumer: stepFunctions,
    invoker,
    logger,
    nowEpochMs: () => NOW_MS,
  });
}

describe('deriveInferenceId', () => {
  it('gives the same id for the same run and item, another for another item', () => {
    expect(deriveInferenceId('nightly', 3)).toBe(deriveInferenceId('nightly', 3));
    expect(deriveInferenceId('nightly', 3)).not.toBe(deriveInferenceId('nightly', 4));
    expect(deriveInferenceId('nightly', 3)).not.toBe(deriveInferenceId('nightly-2', 3));
  });

  it('stays within SageMaker InferenceId limit of 64 characters for an 80-character run id', () => {
    const id = deriveInferenceId('r'.repeat(80), 999);

    expect(id.length).toBeLessThanOrEqual(64);
    expect(id).toMatch(/^mso-r{20}-[0-9a-f]{8}-item-999$/);
  });

  it('fails when the item index is not a non-negative integer', () => {
    expect(() => deriveInferenceId('nightly', -1)).toThrow(
      'itemIndex: got -1, expected an integer of at least 0',
    );
  });
});

describe('invokeAsyncInference', () => {
  it('stores the token under the derived id with a TTL past the wait, then invokes with that id', async () => {
    // Arrange
    const token = stepFunctions.issueToken();
    const inferenceId = deriveInferenceId('nightly-2026-05-23', 3);

    // Act
    const receipt = await invoke(token);

    // Assert
    expect(store.records.get(inferenceId)).toEqual({
      inferenceId,
      taskToken: token,
      runId: 'nightly-2026-05-23',
      itemIndex: 3,
      inputLocation: 's3://mso-async-input/inputs/0003.json',
      endpointName: 'mso-async-endpoint',
      outputLocation: `s3://mso-async-output/results/${inferenceId}.out`,
      failureLocation: `s3://mso-async-output/failures/${inferenceId}-error.out`,
      storedAtEpochMs: NOW_MS,
      expiresAtEpochSeconds: NOW_MS / 1000 + 3600 + RECORD_GRACE_SECONDS,
    });
    expect(invoker.requests).toEqual([
      {
        endpointName: 'mso-async-endpoint',
        inputLocation: 's3://mso-async-input/inputs/0003.json',
        contentType: 'application/json',
        inferenceId,
        invocationTimeoutSeconds: 900,
        requestTtlSeconds: 1800,
      },
    ]);
    expect(receipt).toEqual({
      inferenceId,
      outputLocation: `s3://mso-async-output/results/${inferenceId}.out`,
      failureLocation: `s3://mso-async-output/failures/${inferenceId}-error.out`,
    });
  });

  it('passes the queue TTL of the run through to InvokeEndpointAsync', async () => {
    // Act
    await invoke(stepFunctions.issueToken(), { requestTtlSeconds: 60 });

    // Assert
    expect(invoker.requests.map((request) => request.requestTtlSeconds)).toEqual([60]);
  });

  it('stores the endpoint invoked in the record, for the heartbeat sender', async () => {
    // Act
    await invoke(stepFunctions.issueToken(), { endpointName: 'mso-nightly-ep-async' });

    // Assert
    expect(store.records.get(deriveInferenceId('nightly-2026-05-23', 3))?.endpointName).toBe(
      'mso-nightly-ep-async',
    );
  });

  it('replaces the token of a previous attempt that is over, and invokes again', async () => {
    // Arrange: the first attempt stored its token, then its wait timed out.
    const first = stepFunctions.issueToken();
    await invoke(first);
    stepFunctions.endTask(first);
    const second = stepFunctions.issueToken();

    // Act
    await invoke(second);

    // Assert
    expect(stepFunctions.heartbeats).toEqual([first]);
    expect(store.records.get(deriveInferenceId('nightly-2026-05-23', 3))?.taskToken).toBe(second);
    expect(invoker.requests).toHaveLength(2);
  });

  it('replaces a tombstone: the previous attempt was resumed (e.g. failed) and the workflow retries', async () => {
    // Arrange
    const first = stepFunctions.issueToken();
    await invoke(first);
    const inferenceId = deriveInferenceId('nightly-2026-05-23', 3);
    await store.consumeToken(inferenceId, first, NOW_MS + 1000);
    const second = stepFunctions.issueToken();

    // Act
    await invoke(second);

    // Assert: no heartbeat needed, the token is the new attempt's.
    expect(stepFunctions.heartbeats).toEqual([]);
    expect(store.records.get(inferenceId)?.taskToken).toBe(second);
  });

  it('invokes again without rewriting when the same attempt runs twice', async () => {
    const token = stepFunctions.issueToken();
    await invoke(token);

    await invoke(token);

    expect(stepFunctions.heartbeats).toEqual([]);
    expect(invoker.requests).toHaveLength(2);
  });

  it('fails when the id holds the token of a task that still waits, leaving that token in place', async () => {
    // Arrange: another live task (a colliding run) owns the id.
    const owner = stepFunctions.issueToken();
    await invoke(owner);
    const intruder = stepFunctions.issueToken();

    // Act
    const attempt = invoke(intruder);

    // Assert
    await expect(attempt).rejects.toBeInstanceOf(InferenceIdInUseError);
    await expect(attempt).rejects.toThrow(/belongs to a task that is still waiting/);
    expect(store.records.get(deriveInferenceId('nightly-2026-05-23', 3))?.taskToken).toBe(owner);
    expect(invoker.requests).toHaveLength(1);
  });

  it('fails when the record changes between the check and the replace', async () => {
    // Arrange
    const first = stepFunctions.issueToken();
    await invoke(first);
    stepFunctions.endTask(first);
    const racing = stepFunctions.issueToken();
    const inferenceId = deriveInferenceId('nightly-2026-05-23', 3);
    const realReplace = store.replace.bind(store);
    store.replace = (record, previous) => {
      store.records.set(inferenceId, { ...previous, taskToken: racing });
      return realReplace(record, previous);
    };

    // Act / Assert
    await expect(invoke(stepFunctions.issueToken())).rejects.toBeInstanceOf(InferenceIdInUseError);
    expect(store.records.get(inferenceId)?.taskToken).toBe(racing);
  });

  it('fails with the invoker error and deletes its own token when nothing was queued', async () => {
    // Arrange
    const failure = Object.assign(new Error('Endpoint mso-async-endpoint not found.'), {
      name: 'ValidationError',
    });
    invoker.failWith = failure;

    // Act / Assert
    await expect(invoke(stepFunctions.issueToken())).rejects.toBe(failure);
    expect(store.records.size).toBe(0);
  });

  it('never logs the task token', async () => {
    // Arrange: a first attempt that timed out, a retry that replaces it.
    const first = stepFunctions.issueToken();
    await invoke(first);
    stepFunctions.endTask(first);
    const second = stepFunctions.issueToken();

    // Act
    await invoke(second);

    // Assert
    expect(logger.lines.length).toBeGreaterThan(0);
    for (const token of [first, second]) {
      expect(logger.lines.join('\n')).not.toContain(token.slice(0, 24));
    }
  });
  it('fails with EndpointFailedError when the endpoint is gone, deleting its own token', async () => {
    // Arrange
    const gone = new EndpointFailedError('Endpoint mso-async-endpoint of account 123456789012 not found.');
    invoker.failWith = gone;

    // Act / Assert
    await expect(invoke(stepFunctions.issueToken())).rejects.toBe(gone);
    expect(store.records.size).toBe(0);
  });

  it('leaves the receipt out when the notification resumed the task first (a fast model)', async () => {
    // Arrange: the notification consumes the token while InvokeEndpointAsync is still answering.
    const token = stepFunctions.issueToken();
    const inferenceId = deriveInferenceId('nightly-2026-05-23', 3);
    const queue = invoker.invokeEndpointAsync.bind(invoker);
    invoker.invokeEndpointAsync = async (request) => {
      const receipt = await queue(request);
      await store.consumeToken(inferenceId, token, NOW_MS + 5);
      return receipt;
    };

    // Act
    await invoke(token);

    // Assert
    const record = store.records.get(inferenceId);
    expect(record?.outputLocation).toBeUndefined();
    expect(record?.resumedAtEpochMs).toBe(NOW_MS + 5);
  });

  it('returns the receipt when storing it fails, with a warning, since the request is queued', async () => {
    // Arrange
    const token = stepFunctions.issueToken();
    store.recordReceipt = () =>
      Promise.reject(Object.assign(new Error('throttled'), { name: 'TransientServiceError' }));

    // Act
    const receipt = await invoke(token);

    // Assert
    expect(receipt.outputLocation).toBe(
      `s3://mso-async-output/results/${deriveInferenceId('nightly-2026-05-23', 3)}.out`,
    );
    expect(logger.lines).toContainEqual(
      JSON.stringify({
        level: 'WARN',
        message: 'Could not store where the result will be written',
        inferenceId: deriveInferenceId('nightly-2026-05-23', 3),
        runId: 'nightly-2026-05-23',
        itemIndex: 3,
        error: 'TransientServiceError',
      }),
    );
  });
});
