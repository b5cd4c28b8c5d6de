import { describe, expect, it } from '@jest/globals';
import { LocalTaskResumer } from '../../../local/async/local-task-resumer.js';
import { TaskTokenBroker } from '../../../local/runner/task-tokens.js';

/** A task waiting on a fresh token, as a `.waitForTaskToken` task waits in the runner. */
function waitingTask(broker: TaskTokenBroker): {
  token: string;
  settled: Promise<unknown>;
  stop: AbortController;
} {
  const token = broker.issueToken();
  const stop = new AbortController();
  const settled = broker.waitForCompletion([token], { signal: stop.signal });
  settled.catch(() => undefined);
  return { token, settled, stop };
}

describe('LocalTaskResumer', () => {
  it('resumes the waiting task with the output', async () => {
    // Prepare
    const broker = new TaskTokenBroker();
    const task = waitingTask(broker);

    // Act
    const outcome = await new LocalTaskResumer(broker).sendTaskSuccess(task.token, {
      outputLocation: 's3://b/o.out',
    });

    // Assert
    expect(outcome).toEqual({ status: 'delivered' });
    await expect(task.settled).resolves.toEqual({ outputLocation: 's3://b/o.out' });
  });

  it('fails the waiting task with the error name and cause', async () => {
    // Prepare
    const broker = new TaskTokenBroker();
    const task = waitingTask(broker);

    // Act
    const outcome = await new LocalTaskResumer(broker).sendTaskFailure(
      task.token,
      'InferenceFailedError',
      '{"why":1}',
    );

    // Assert
    expect(outcome).toEqual({ status: 'delivered' });
    // The engine's Catch output is { Error: name, Cause: message }.
    await expect(task.settled).rejects.toMatchObject({ name: 'InferenceFailedError', message: '{"why":1}' });
  });

  it('answers TaskTimedOut for a token whose task is over', async () => {
    // Prepare
    const broker = new TaskTokenBroker();
    const task = waitingTask(broker);
    const resumer = new LocalTaskResumer(broker);
    await resumer.sendTaskSuccess(task.token, {});

    // Act
    const outcome = await resumer.sendTaskSuccess(task.token, {});

    // Assert
    expect(outcome).toEqual({ status: 'task-gone', reason: 'TaskTimedOut' });
  });

  it('answers TaskTimedOut to a heartbeat once the task was abandoned (its wait timed out)', async () => {
    const broker = new TaskTokenBroker();
    const task = waitingTask(broker);
    task.stop.abort(new Error('States.Timeout'));
    expect(await new LocalTaskResumer(broker).sendTaskHeartbeat(task.token)).toEqual({
      status: 'task-gone',
      reason: 'TaskTimedOut',
    });
  });

  it('answers TaskDoesNotExist for a token no task received', async () => {
    const resumer = new LocalTaskResumer(new TaskTokenBroker());
    expect(await resumer.sendTaskHeartbeat('local-task-token-never-issued')).toEqual({
      status: 'task-gone',
      reason: 'TaskDoesNotExist',
    });
  });

  it('tells a waiting task apart with a heartbeat, without resuming it', async () => {
    const broker = new TaskTokenBroker();
    const task = waitingTask(broker);
    expect(await new LocalTaskResumer(broker).sendTaskHeartbeat(task.token)).toEqual({ status: 'delivered' });
    expect(broker.pendingTokens).toEqual([task.token]);
  });

  it('fails with InvalidOutput above 256 KiB, its message free of the token', async () => {
    // Prepare
    const broker = new TaskTokenBroker();
    const task = waitingTask(broker);
    const resumer = new LocalTaskResumer(broker);

    // Act
    const sent = resumer.sendTaskSuccess(task.token, { blob: 'x'.repeat(300 * 1024) });

    // Assert
    const error = (await sent.catch((thrown: unknown) => thrown)) as Error;
    expect(error.name).toBe('InvalidOutput');
    expect(error.message).not.toContain(task.token);
    expect(error.stack).not.toContain(task.token);
  });
});
