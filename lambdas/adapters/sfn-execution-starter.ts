import { type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { TransientServiceError } from '../../core/contracts/index.js';
import type { ExecutionStarter } from '../../core/operations/start-approved-model-run.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';

/**
 * `ExecutionStarter` over Step Functions `StartExecution`, for one state machine.
 *
 * `ExecutionAlreadyExists` means the name is taken (StartExecution API reference: an open
 * execution with the same name and a different input, or any closed execution with that name;
 * the same name and input while open is a plain success). Callers derive the name from what they
 * start, so a taken name is that run, already started. Throttling and 5xx become
 * `TransientServiceError`; anything else is rethrown as it is.
 */

export interface SfnExecutionStarterOptions {
  readonly client: SFNClient;
  readonly stateMachineArn: string;
}

export class SfnExecutionStarter implements ExecutionStarter {
  private readonly client: SFNClient;
  private readonly stateMachineArn: string;

  constructor(options: SfnExecutionStarterOptions) {
    this.client = options.client;
    this.stateMachineArn = options.stateMachineArn;
  }

  async start(request: {
    readonly name: string;
    readonly input: Readonly<Record<string, unknown>>;
  }): Promise<
    { readonly status: 'started'; readonly executionArn: string } | { readonly status: 'already-started' }
  > {
    try {
      const response = await this.client.send(
        new StartExecutionCommand({
          stateMachineArn: this.stateMachineArn,
          name: request.name,
          input: JSON.stringify(request.input),
        }),
      );
      if (response.executionArn === undefined) {
        throw new Error(
          `Step Functions StartExecution of "${request.name}" answered without an executionArn, expected one`,
        );
      }
      return { status: 'started', executionArn: response.executionArn };
    } catch (error) {
      if (errorName(error) === 'ExecutionAlreadyExists') return { status: 'already-started' };
      if (isTransient(error)) {
        throw new TransientServiceError(
          `Step Functions StartExecution of "${request.name}" failed: ${errorName(error) ?? 'Error'}: ${errorMessage(error)}`,
          { operation: 'StartExecution', name: request.name },
        );
      }
      throw error;
    }
  }
}
