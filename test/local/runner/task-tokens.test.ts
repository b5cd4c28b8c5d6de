import { describe, expect, it } from '@jest/globals';
import { TaskTokenBroker } from '../../../local/runner/index.js';

function waiting(broker: TaskTokenBroker, onHeartbeat?: () => void) {
  const token = broker.issueToken();
  const controller = new AbortController();
  const completion = broker.waitForCompletion([token], {
    signal: controller.signal,
    ...(onHeartbeat ? { onHeartbeat } : {}),
  });
  return { token, controller, completion };
}

describe('TaskTokenBroker', () => {
  it('resolves the waiting task with the output of sendTaskSuccess', async () => {
    // Prepare
    const broker = new TaskTokenBroker();
    const { token, completion } = waiting(broker);

    // Act
    await broker.sendTaskSuccess(token, { outputLocation: 's3://bucket/out' });

    // Assert
    await expect(completion).resolves.toEqual({ outputLocation: 's3://bucket/out' });
  });

  it('rejects the waiting task with the error name and cause of sendTaskFailure', async () => {
    // Prepare
    const broker = new TaskTokenBroker();
    const { token, completion } = waiting(broker);

    // Act
    await broker.sendTaskFailure(token, 'InferenceFailedError', 'model returned 500');

    // Assert
    await expect(completion).rejects.toMatchObject({
      name: 'InferenceFailedError',
      message: 'model returned 500',
    });
  });

  it('passes heartbeats to the waiting task', async () => {
    // Prepare
    const broker = new TaskTokenBroker();
    let beats = 0;
    const { token } = waiting(broker, () => (beats += 1));

    // Act
    await broker.sendTaskHeartbeat(token);
    await broker.sendTaskHeartbeat(token);

    // Assert
    expect(beats).toBe(2);
  });

  it('fails with TaskDoesNotExist for a token no task waits on', async () => {
    // Prepare
    const broker = new TaskTokenBroker();

    // Act
    const send = broker.sendTaskSuccess('local-task-token-unknown', {});

    // Assert
    await expect(send).rejects.toMatchObject({ name: 'TaskDoesNotExist' });
  });

  it('fails with TaskTimedOut for a token whose task already completed', async () => {
    // Prepare
    const broker = new TaskTokenBroker();
    const { token } = waiting(broker);
    await broker.sendTaskSuccess(token, 'first');

    // Act
    const second = broker.sendTaskSuccess(token, 'second');

    // Assert
    await expect(second).rejects.toMatchObject({ name: 'TaskTimedOut' });
  });

  it('fails with TaskTimedOut for a token whose task was abandoned', async () => {
    // Prepare
    const broker = new TaskTokenBroker();
    const { token, controller, completion } = waiting(broker);
    controller.abort(new Error('attempt timed out'));
    await expect(completion).rejects.toThrow('attempt timed out');

    // Act
    const heartbeat = broker.sendTaskHeartbeat(token);

    // Assert
    await expect(heartbeat).rejects.toMatchObject({ name: 'TaskTimedOut' });
    expect(broker.pendingTokens).toEqual([]);
  });

  it('fails with InvalidOutput when the output exceeds 256 KiB, and keeps the task waiting', async () => {
    // Prepare
    const broker = new TaskTokenBroker();
    const { token } = waiting(broker);

    // Act
    const send = broker.sendTaskSuccess(token, 'x'.repeat(256 * 1024));

    // Assert
    await expect(send).rejects.toMatchObject({ name: 'InvalidOutput' });
    expect(broker.pendingTokens).toEqual([token]);
  });
});
