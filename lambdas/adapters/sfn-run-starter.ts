import { type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { RunStarter, RunStartOutcome } from '../../core/run-status/index.js';
import type { RunWorkflow } from '../../core/contracts/index.js';
import { errorMessage, errorName, isThrottling, isTransient } from './aws-errors.js';
import { checkStateMachineArns } from './sfn-execution-reader.js';

/**
 * `RunStarter` over Step Functions `StartExecution`, for the run API's `POST` routes. The errors
 * StartExecution declares (Smithy model `com.amazonaws.sfn#StartExecution`) are sorted by what the
 * caller should do:
 *
 * - `ExecutionAlreadyExists` → name taken: the same name and input while the run is open is a plain
 *   success (StartExecution API reference, "idempotent"), so this is another input or an ended run;
 * - `ExecutionLimitExceeded`, `KmsThrottlingException` and throttling → retry later;
 * - a 5xx or a network failure → unavailable, retry;
 * - anything else (`StateMachineDoesNotExist`, `StateMachineDeleting`, `InvalidArn`,
 *   `KmsAccessDeniedException`, `KmsInvalidStateException`, `AccessDeniedException`, and
 *   `InvalidExecutionInput`/`InvalidName`/`ValidationException`, which the start-run handler's own
 *   checks make unreachable) → refused: the deployment, not the request, is wrong.
 */

const RETRY_LATER: ReadonlySet<string> = new Set(['ExecutionLimitExceeded', 'KmsThrottlingException']);

export interface SfnRunStarterOptions {
  readonly client: SFNClient;
  /** The ARN of each deployed workflow's state machine; a workflow left out is not deployed. */
  readonly stateMachineArns: Readonly<Partial<Record<RunWorkflow, string>>>;
}

export class SfnRunStarter implements RunStarter {
  private readonly client: SFNClient;
  private readonly stateMachineArns: Readonly<Partial<Record<RunWorkflow, string>>>;

  constructor(options: SfnRunStarterOptions) {
    this.client = options.client;
    this.stateMachineArns = checkStateMachineArns('SfnRunStarter', options.stateMachineArns);
  }

  async start(request: {
    readonly workflow: RunWorkflow;
    readonly name: string;
    readonly input: unknown;
  }): Promise<RunStartOutcome> {
    const stateMachineArn = this.stateMachineArns[request.workflow];
    if (stateMachineArn === undefined) {
      return {
        status: 'refused',
        error: 'WorkflowNotDeployed',
        message: `the ${request.workflow} workflow is not deployed with this API (its state machine ARN is not set)`,
      };
    }
    try {
      const response = await this.client.send(
        new StartExecutionCommand({
          stateMachineArn,
          name: request.name,
          input: JSON.stringify(request.input),
        }),
      );
      if (response.executionArn === undefined || response.startDate === undefined) {
        return {
          status: 'unavailable',
          message: 'StartExecution answered without an executionArn or startDate',
        };
      }
      return { status: 'started', executionArn: response.executionArn, startDate: response.startDate };
    } catch (error) {
      const name = errorName(error) ?? 'Error';
      const message = `${name}: ${errorMessage(error)}`;
      if (name === 'ExecutionAlreadyExists') return { status: 'name-taken', message };
      if (RETRY_LATER.has(name) || isThrottling(error)) return { status: 'throttled', message };
      if (isTransient(error)) return { status: 'unavailable', message };
      return { status: 'refused', error: name, message: errorMessage(error) };
    }
  }
}
