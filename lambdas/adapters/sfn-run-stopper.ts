import { type SFNClient, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { TransientServiceError } from '../../core/contracts/index.js';
import type { RunRef, RunStopper } from '../../core/run-status/index.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';
import type { SfnExecutionReader } from './sfn-execution-reader.js';

/**
 * `RunStopper` over Step Functions StopExecution (Smithy model `com.amazonaws.sfn#StopExecution`:
 * `executionArn` required, `error` and `cause` optional; errors ExecutionDoesNotExist, InvalidArn,
 * KmsAccessDeniedException, KmsInvalidStateException, KmsThrottlingException, ValidationException).
 * "For an execution with encryption enabled, Step Functions will encrypt the error and cause fields
 * using the KMS key for the execution role": the project's state machines use the AWS-owned key
 * (no `encryptionConfiguration`), so passing them needs no KMS grant.
 */

export interface SfnRunStopperOptions {
  readonly client: SFNClient;
  /** Names the run's execution ARN (run id = execution name). */
  readonly executions: Pick<SfnExecutionReader, 'executionArnOf'>;
}

/** StopExecution's `error` is at most 256 characters and `cause` at most 32,768 (Smithy `SensitiveError`, `SensitiveCause`). */
const MAX_ERROR_LENGTH = 256;
const MAX_CAUSE_LENGTH = 32_768;

export class SfnRunStopper implements RunStopper {
  private readonly client: SFNClient;
  private readonly executions: Pick<SfnExecutionReader, 'executionArnOf'>;

  constructor(options: SfnRunStopperOptions) {
    this.client = options.client;
    this.executions = options.executions;
  }

  async stop(
    run: RunRef,
    reason: { readonly error: string; readonly cause: string },
  ): Promise<{ readonly stopDate: Date }> {
    const executionArn = this.executions.executionArnOf(run);
    try {
      const { stopDate } = await this.client.send(
        new StopExecutionCommand({
          executionArn,
          error: reason.error.slice(0, MAX_ERROR_LENGTH),
          cause: reason.cause.slice(0, MAX_CAUSE_LENGTH),
        }),
      );
      if (stopDate === undefined)
        throw new Error(`StopExecution ${executionArn}: answered without a stopDate`);
      return { stopDate };
    } catch (error) {
      if (!isTransient(error)) throw error;
      throw new TransientServiceError(
        `Step Functions StopExecution failed: ${errorName(error) ?? 'Error'}: ${errorMessage(error)}`,
        { operation: 'StopExecution' },
      );
    }
  }
}
