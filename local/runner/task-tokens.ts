import { randomUUID } from 'node:crypto';
import type { JsonValue } from './json.js';
import { jsonByteLength, toJsonValue } from './json.js';
import { TaskFailedError } from './task-errors.js';
import { STEP_FUNCTIONS_QUOTAS } from '../../core/contracts/index.js';

/**
 * Names of the Step Functions API errors for task tokens, as `@aws-sdk/client-sfn` throws them
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskSuccess.html), so a
 * caller handles the local broker and the real API alike.
 */
export type TaskTokenErrorName = 'TaskDoesNotExist' | 'TaskTimedOut' | 'InvalidOutput';

export class TaskTokenError extends Error {
  constructor(
    override readonly name: TaskTokenErrorName,
    message: string,
  ) {
    super(message);
  }
}

/** SendTaskSuccess `output`: at most 256 KiB, like every state payload (Step Functions quotas). */
const MAX_OUTPUT_BYTES = STEP_FUNCTIONS_QUOTAS.maxPayloadBytes;

export interface WaitForTokenOptions {
  /** Aborting it abandons the task (timeout, execution stopped): its tokens stop being accepted. */
  readonly signal: AbortSignal;
  readonly onHeartbeat?: () => void;
}

interface PendingTask {
  readonly tokens: readonly string[];
  readonly resolve: (output: JsonValue) => void;
  readonly reject: (error: Error) => void;
  readonly onHeartbeat?: () => void;
  readonly detach: () => void;
}

/**
 * Local stand-in for the Step Functions task-token API. The runner issues a token each time a Task
 * evaluates `$$.Task.Token` and waits on it; whoever holds the token (the local async endpoint's
 * notification handler, a test) resumes the task with `sendTaskSuccess`/`sendTaskFailure`.
 */
export class TaskTokenBroker {
  private readonly pending = new Map<string, PendingTask>();
  /** Tokens whose task is over; AWS answers TaskTimedOut for those ("Task Timed Out"). */
  private readonly finished = new Set<string>();

  issueToken(): string {
    return `local-task-token-${randomUUID()}`;
  }

  /** Settles with the output of the first `sendTaskSuccess` on any of `tokens`, or rejects on failure or abort. */
  waitForCompletion(tokens: readonly string[], options: WaitForTokenOptions): Promise<JsonValue> {
    const { signal, onHeartbeat } = options;
    return new Promise<JsonValue>((resolve, reject) => {
      const abandon = (): void => {
        this.finish(task);
        reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
      };
      const task: PendingTask = {
        tokens,
        resolve,
        reject,
        ...(onHeartbeat ? { onHeartbeat } : {}),
        detach: () => {
          signal.removeEventListener('abort', abandon);
        },
      };
      if (signal.aborted) {
        abandon();
        return;
      }
      signal.addEventListener('abort', abandon, { once: true });
      for (const token of tokens) this.pending.set(token, task);
    });
  }

  sendTaskSuccess(token: string, output: JsonValue): Promise<void> {
    return this.settle(token, (task) => {
      const value = toJsonValue(output, 'SendTaskSuccess output');
      const size = jsonByteLength(value);
      if (size > MAX_OUTPUT_BYTES) {
        throw new TaskTokenError(
          'InvalidOutput',
          `SendTaskSuccess output is ${size} bytes, above the ${MAX_OUTPUT_BYTES}-byte Step Functions limit; pass an S3 pointer instead`,
        );
      }
      task.resolve(value);
    });
  }

  /** As on AWS, the task fails with `{ Error: error, Cause: cause }`, which Retry/Catch match on `error`. */
  sendTaskFailure(token: string, error = '', cause = ''): Promise<void> {
    return this.settle(token, (task) => {
      task.reject(new TaskFailedError(error, cause));
    });
  }

  sendTaskHeartbeat(token: string): Promise<void> {
    return Promise.resolve().then(() => {
      this.pendingTask(token).onHeartbeat?.();
    });
  }

  /** Tokens that tasks are waiting on right now. */
  get pendingTokens(): string[] {
    return [...this.pending.keys()];
  }

  private settle(token: string, complete: (task: PendingTask) => void): Promise<void> {
    return Promise.resolve().then(() => {
      const task = this.pendingTask(token);
      complete(task);
      this.finish(task);
    });
  }

  private pendingTask(token: string): PendingTask {
    const task = this.pending.get(token);
    if (task) return task;
    if (this.finished.has(token)) {
      throw new TaskTokenError(
        'TaskTimedOut',
        `Task token ${token}: its task is over (completed, timed out or its execution stopped)`,
      );
    }
    throw new TaskTokenError(
      'TaskDoesNotExist',
      `Task token ${token}: no task is waiting on it; expected a token that a running .waitForTaskToken task received`,
    );
  }

  private finish(task: PendingTask): void {
    task.detach();
    for (const token of task.tokens) {
      this.pending.delete(token);
      this.finished.add(token);
    }
  }
}
