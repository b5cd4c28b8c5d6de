/**
 * `TaskResumer` over the local runner's `TaskTokenBroker`: what `SfnTaskResumer` is over Step
 * Functions. The broker throws the Step Functions API's error names; a task that no longer waits
 * (`TaskTimedOut`: its task is over; `TaskDoesNotExist`: no task has this token) is an outcome, as
 * on AWS. Anything else (`InvalidOutput` above 256 KiB) is rethrown with its name and the token
 * removed from its message: the broker quotes the token, and thrown errors end up in log lines.
 */
import { redactError } from '../../core/contracts/index.js';
import {
  type TaskCallOutcome,
  type TaskGoneReason,
  TaskGoneReasons,
  type TaskResumer,
} from '../../core/async/index.js';
import { type TaskTokenBroker, toJsonValue } from '../runner/index.js';

/** Step Functions API limits (SendTaskFailure reference): `error` ≤ 256, `cause` ≤ 32,768 characters. */
const MAX_ERROR_LENGTH = 256;
const MAX_CAUSE_LENGTH = 32_768;

export class LocalTaskResumer implements TaskResumer {
  constructor(private readonly broker: TaskTokenBroker) {}

  sendTaskSuccess(taskToken: string, output: Readonly<Record<string, unknown>>): Promise<TaskCallOutcome> {
    return this.call(taskToken, () =>
      this.broker.sendTaskSuccess(taskToken, toJsonValue(output, 'SendTaskSuccess output')),
    );
  }

  sendTaskFailure(taskToken: string, error: string, cause: string): Promise<TaskCallOutcome> {
    return this.call(taskToken, () =>
      this.broker.sendTaskFailure(
        taskToken,
        error.slice(0, MAX_ERROR_LENGTH),
        cause.slice(0, MAX_CAUSE_LENGTH),
      ),
    );
  }

  sendTaskHeartbeat(taskToken: string): Promise<TaskCallOutcome> {
    return this.call(taskToken, () => this.broker.sendTaskHeartbeat(taskToken));
  }

  private async call(taskToken: string, send: () => Promise<void>): Promise<TaskCallOutcome> {
    try {
      await send();
      return { status: 'delivered' };
    } catch (error) {
      const reason = taskGoneReason(error);
      if (reason !== undefined) return { status: 'task-gone', reason };
      // Keep the class and name (callers match on them), drop the token from the text.
      throw redactError(error, [taskToken]);
    }
  }
}

function taskGoneReason(error: unknown): TaskGoneReason | undefined {
  if (!(error instanceof Error)) return undefined;
  return TaskGoneReasons.find((reason) => reason === error.name);
}
