import {
  type SFNClient,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
} from '@aws-sdk/client-sfn';
import { TransientServiceError, redactError, redactText } from '../../core/contracts/index.js';
import {
  type TaskCallOutcome,
  type TaskGoneReason,
  TaskGoneReasons,
  type TaskResumer,
} from '../../core/async/index.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';

/**
 * `TaskResumer` over Step Functions. A task that no longer waits (`TaskTimedOut`,
 * `TaskDoesNotExist`, `InvalidToken`) is an outcome; throttling and 5xx become
 * `TransientServiceError`; anything else (e.g. `InvalidOutput`) is rethrown with its name.
 *
 * Error messages may quote the token ("Invalid Token: '…'"), so every message that leaves this
 * adapter has the token replaced: thrown errors end up in log lines.
 */

/** Step Functions API limits (SendTaskFailure reference): `error` ≤ 256, `cause` ≤ 32,768 characters. */
const MAX_ERROR_LENGTH = 256;
const MAX_CAUSE_LENGTH = 32_768;

export interface SfnTaskResumerOptions {
  readonly client: SFNClient;
}

export class SfnTaskResumer implements TaskResumer {
  private readonly client: SFNClient;

  constructor(options: SfnTaskResumerOptions) {
    this.client = options.client;
  }

  sendTaskSuccess(taskToken: string, output: Readonly<Record<string, unknown>>): Promise<TaskCallOutcome> {
    return this.call('SendTaskSuccess', taskToken, () =>
      this.client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) })),
    );
  }

  sendTaskFailure(taskToken: string, error: string, cause: string): Promise<TaskCallOutcome> {
    return this.call('SendTaskFailure', taskToken, () =>
      this.client.send(
        new SendTaskFailureCommand({
          taskToken,
          error: error.slice(0, MAX_ERROR_LENGTH),
          cause: cause.slice(0, MAX_CAUSE_LENGTH),
        }),
      ),
    );
  }

  sendTaskHeartbeat(taskToken: string): Promise<TaskCallOutcome> {
    return this.call('SendTaskHeartbeat', taskToken, () =>
      this.client.send(new SendTaskHeartbeatCommand({ taskToken })),
    );
  }

  private async call(
    operation: string,
    taskToken: string,
    send: () => Promise<unknown>,
  ): Promise<TaskCallOutcome> {
    try {
      await send();
      return { status: 'delivered' };
    } catch (error) {
      const reason = taskGoneReason(error);
      if (reason !== undefined) return { status: 'task-gone', reason };
      throw redacted(operation, taskToken, error);
    }
  }
}

export function taskGoneReason(error: unknown): TaskGoneReason | undefined {
  const name = errorName(error);
  return TaskGoneReasons.find((reason) => reason === name);
}

function redacted(operation: string, taskToken: string, error: unknown): unknown {
  if (isTransient(error)) {
    return new TransientServiceError(
      `Step Functions ${operation} failed: ${errorName(error) ?? 'Error'}: ${redactText(errorMessage(error), [taskToken])}`,
      { operation },
    );
  }
  // Keep the class and name (Retry/Catch and logs match on them), drop the token from the text.
  return redactError(error, [taskToken]);
}
