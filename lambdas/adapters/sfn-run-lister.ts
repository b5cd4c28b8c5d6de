import { type ExecutionListItem, ListExecutionsCommand, type SFNClient } from '@aws-sdk/client-sfn';
import {
  ResourceNotFoundError,
  TransientServiceError,
  type ExecutionStatus,
  ExecutionStatuses,
  type RunWorkflow,
} from '../../core/contracts/index.js';
import type { ListedExecution, RunLister } from '../../core/run-status/index.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';
import { checkStateMachineArns } from './sfn-execution-reader.js';

/**
 * `RunLister` over Step Functions ListExecutions (Smithy model `com.amazonaws.sfn#ListExecutions`:
 * `stateMachineArn`, `statusFilter`, `maxResults` "default is 100 and the maximum allowed page size
 * is 1000", `nextToken`; errors InvalidArn, InvalidToken, ResourceNotFound,
 * StateMachineDoesNotExist, StateMachineTypeNotSupported, ValidationException). ListExecutions has
 * no date filter, and sorts "by time, with the most recent execution first. Running executions are
 * sorted by their startDate or redriveDate, and other executions are sorted by their stopDate", so
 * `since` is applied here: once an execution's sort date is before `since`, every later one's is
 * too, and so is its start date: paging stops there.
 */

/** ListExecutions' largest page. */
export const LIST_PAGE_SIZE = 1000;
/** Pages read per request at most: 10 × 1,000 executions fit well within the Lambda's 20 s. */
export const MAX_LIST_PAGES = 10;

const KNOWN_STATUSES: ReadonlySet<string> = new Set(Object.values(ExecutionStatuses));

export interface SfnRunListerOptions {
  readonly client: SFNClient;
  readonly stateMachineArns: Readonly<Partial<Record<RunWorkflow, string>>>;
}

export class SfnRunLister implements RunLister {
  private readonly client: SFNClient;
  private readonly stateMachineArns: Readonly<Partial<Record<RunWorkflow, string>>>;

  constructor(options: SfnRunListerOptions) {
    this.client = options.client;
    this.stateMachineArns = checkStateMachineArns('SfnRunLister', options.stateMachineArns);
  }

  async list(request: {
    readonly workflow: RunWorkflow;
    readonly status?: ExecutionStatus;
    readonly since?: Date;
    readonly limit: number;
  }): Promise<{ readonly executions: readonly ListedExecution[]; readonly truncated: boolean }> {
    const stateMachineArn = this.stateMachineArns[request.workflow];
    if (stateMachineArn === undefined) {
      throw new ResourceNotFoundError(
        `The ${request.workflow} workflow is not deployed with this API: no state machine ARN for it`,
        { workflow: request.workflow },
      );
    }
    const { since, limit } = request;
    const found: ListedExecution[] = [];
    let nextToken: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
      let items: ExecutionListItem[] | undefined;
      try {
        ({ executions: items, nextToken } = await this.client.send(
          new ListExecutionsCommand({
            stateMachineArn,
            // Without a date filter the first `limit` + 1 tell whether there are more.
            maxResults: since === undefined ? Math.min(limit + 1, LIST_PAGE_SIZE) : LIST_PAGE_SIZE,
            ...(request.status === undefined ? {} : { statusFilter: request.status }),
            ...(nextToken === undefined ? {} : { nextToken }),
          }),
        ));
      } catch (error) {
        throw translated(error);
      }
      for (const item of items ?? []) {
        const execution = toListed(item);
        const sortDate = execution.stopDate ?? execution.startDate;
        if (since !== undefined && sortDate < since) return { executions: found, truncated: false };
        if (since !== undefined && execution.startDate < since) continue;
        if (found.length === limit) return { executions: found, truncated: true };
        found.push(execution);
      }
      if (nextToken === undefined) return { executions: found, truncated: false };
    }
    return { executions: found, truncated: true };
  }
}

function toListed(item: ExecutionListItem): ListedExecution {
  const { name, executionArn, status, startDate, stopDate } = item;
  if (
    name === undefined ||
    executionArn === undefined ||
    status === undefined ||
    !KNOWN_STATUSES.has(status) ||
    startDate === undefined
  ) {
    throw new Error(
      `ListExecutions: got an execution with name ${String(name)}, status ${String(status)} and startDate ` +
        `${String(startDate)}, expected a name, one of ${[...KNOWN_STATUSES].join(', ')} and a start date`,
    );
  }
  return {
    name,
    executionArn,
    status,
    startDate,
    ...(stopDate === undefined ? {} : { stopDate }),
  };
}

function translated(error: unknown): unknown {
  if (!isTransient(error)) return error;
  return new TransientServiceError(
    `Step Functions ListExecutions failed: ${errorName(error) ?? 'Error'}: ${errorMessage(error)}`,
    { operation: 'ListExecutions' },
  );
}
