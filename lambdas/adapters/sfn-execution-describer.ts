import { DescribeExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { TransientServiceError } from '../../core/contracts/index.js';
import type { ExecutionDescriber, ExecutionDescription } from '../../core/ports/index.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';

/**
 * `ExecutionDescriber` over Step Functions `DescribeExecution`. The execution's `input` is in the
 * response too; it is dropped here, so nothing downstream can publish it by mistake. The redrive
 * fields are kept: a redriven execution keeps its ARN and is RUNNING again (Step Functions API
 * reference, RedriveExecution and DescribeExecution). Throttling and 5xx become
 * `TransientServiceError`; anything else is rethrown as it is.
 */

export interface SfnExecutionDescriberOptions {
  readonly client: SFNClient;
}

export class SfnExecutionDescriber implements ExecutionDescriber {
  private readonly client: SFNClient;

  constructor(options: SfnExecutionDescriberOptions) {
    this.client = options.client;
  }

  async describe(executionArn: string): Promise<ExecutionDescription> {
    try {
      const response = await this.client.send(new DescribeExecutionCommand({ executionArn }));
      if (response.status === undefined || response.startDate === undefined) {
        throw new Error(
          `Step Functions DescribeExecution of ${executionArn} answered without status or startDate, expected both`,
        );
      }
      return {
        status: response.status,
        startEpochMs: response.startDate.getTime(),
        ...(response.stopDate === undefined ? {} : { stopEpochMs: response.stopDate.getTime() }),
        ...(response.output === undefined ? {} : { output: response.output }),
        ...(response.error === undefined ? {} : { error: response.error }),
        ...(response.cause === undefined ? {} : { cause: response.cause }),
        ...(response.redriveCount === undefined ? {} : { redriveCount: response.redriveCount }),
        ...(response.redriveStatus === undefined ? {} : { redriveStatus: response.redriveStatus }),
      };
    } catch (error) {
      if (isTransient(error)) {
        throw new TransientServiceError(
          `Step Functions DescribeExecution of ${executionArn} failed: ${errorName(error) ?? 'Error'}: ${errorMessage(error)}`,
          { operation: 'DescribeExecution', executionArn },
        );
      }
      throw error;
    }
  }
}
