import {
  DescribeExecutionCommand,
  type DescribeExecutionCommandOutput,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import {
  ResourceNotFoundError,
  TransientServiceError,
  ExecutionStatuses,
  type RunWorkflow,
} from '../../core/contracts/index.js';
import type {
  ExecutionDescription,
  ExecutionReader,
  HistoryEventView,
  RunRef,
} from '../../core/run-status/index.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';

/**
 * `ExecutionReader` over Step Functions: DescribeExecution, and GetExecutionHistory newest first
 * (`reverseOrder`) in pages of 1,000 events, the API's maximum, without execution data
 * (`includeExecutionData: false`: run inputs stay out of the status Lambda). A history holds at most
 * 25,000 events (Step Functions quotas), so at most 25 pages are ever read.
 */

/** GetExecutionHistory `maxResults`: "the maximum allowed page size is 1000". */
export const HISTORY_PAGE_SIZE = 1000;
/** 25,000 events per execution (Step Functions service quotas) ÷ 1,000 per page. */
export const MAX_HISTORY_PAGES = 25;

const STATE_MACHINE_ARN = /^arn:[a-z-]+:states:[a-z0-9-]+:\d{12}:stateMachine:[A-Za-z0-9_-]{1,80}$/;

/** The run API's state machine ARNs, each checked to be one: `adapter` names who refuses them. */
export function checkStateMachineArns(
  adapter: string,
  arns: Readonly<Partial<Record<RunWorkflow, string>>>,
): Readonly<Partial<Record<RunWorkflow, string>>> {
  for (const [workflow, arn] of Object.entries(arns)) {
    if (!STATE_MACHINE_ARN.test(arn)) {
      throw new Error(
        `${adapter}: got the ${workflow} state machine ARN "${arn}", expected ` +
          'arn:<partition>:states:<region>:<account>:stateMachine:<name>',
      );
    }
  }
  return arns;
}

export interface SfnExecutionReaderOptions {
  readonly client: SFNClient;
  /** The ARN of each deployed workflow's state machine; a workflow left out is not deployed. */
  readonly stateMachineArns: Readonly<Partial<Record<RunWorkflow, string>>>;
}

export class SfnExecutionReader implements ExecutionReader {
  private readonly client: SFNClient;
  private readonly stateMachineArns: Readonly<Partial<Record<RunWorkflow, string>>>;

  constructor(options: SfnExecutionReaderOptions) {
    this.client = options.client;
    this.stateMachineArns = checkStateMachineArns('SfnExecutionReader', options.stateMachineArns);
  }

  /** `arn:…:stateMachine:<name>` → `arn:…:execution:<name>:<runId>` (the run id is the execution name). */
  executionArnOf(run: RunRef): string {
    const stateMachineArn = this.stateMachineArns[run.workflow];
    if (stateMachineArn === undefined) {
      throw new ResourceNotFoundError(
        `The ${run.workflow} workflow is not deployed with this API: no state machine ARN for it`,
        { workflow: run.workflow },
      );
    }
    return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${run.runId}`;
  }

  async describe(run: RunRef): Promise<ExecutionDescription | undefined> {
    const executionArn = this.executionArnOf(run);
    let output: DescribeExecutionCommandOutput;
    try {
      output = await this.client.send(new DescribeExecutionCommand({ executionArn }));
    } catch (error) {
      if (errorName(error) === 'ExecutionDoesNotExist') return undefined;
      throw translated('DescribeExecution', error);
    }
    return toDescription(executionArn, output);
  }

  async *newestEvents(run: RunRef): AsyncIterable<HistoryEventView> {
    const executionArn = this.executionArnOf(run);
    let nextToken: string | undefined;
    for (let page = 0; page < MAX_HISTORY_PAGES; page += 1) {
      let events: HistoryEvent[] | undefined;
      try {
        ({ events, nextToken } = await this.client.send(
          new GetExecutionHistoryCommand({
            executionArn,
            reverseOrder: true,
            maxResults: HISTORY_PAGE_SIZE,
            includeExecutionData: false,
            ...(nextToken === undefined ? {} : { nextToken }),
          }),
        ));
      } catch (error) {
        throw translated('GetExecutionHistory', error);
      }
      for (const event of events ?? []) yield toView(event);
      if (nextToken === undefined) return;
    }
  }
}

const KNOWN_STATUSES: ReadonlySet<string> = new Set(Object.values(ExecutionStatuses));

function toDescription(executionArn: string, output: DescribeExecutionCommandOutput): ExecutionDescription {
  const { status, startDate } = output;
  if (status === undefined || !KNOWN_STATUSES.has(status) || startDate === undefined) {
    throw new Error(
      `DescribeExecution ${executionArn}: got status ${String(status)} and startDate ${String(startDate)}, ` +
        `expected one of ${[...KNOWN_STATUSES].join(', ')} and a start date`,
    );
  }
  return {
    executionArn: output.executionArn ?? executionArn,
    status,
    startDate,
    ...(output.stopDate === undefined ? {} : { stopDate: output.stopDate }),
    ...(output.output === undefined ? {} : { output: output.output }),
    ...(output.error === undefined ? {} : { error: output.error }),
    ...(output.cause === undefined ? {} : { cause: output.cause }),
  };
}

function toView(event: HistoryEvent): HistoryEventView {
  const iteration =
    event.mapIterationStartedEventDetails ??
    event.mapIterationSucceededEventDetails ??
    event.mapIterationFailedEventDetails ??
    event.mapIterationAbortedEventDetails;
  const enteredState = event.stateEnteredEventDetails?.name;
  const itemCount = event.mapStateStartedEventDetails?.length;
  return {
    id: event.id ?? 0,
    ...(event.previousEventId === undefined ? {} : { previousEventId: event.previousEventId }),
    type: event.type ?? 'Unknown',
    ...(enteredState === undefined ? {} : { enteredState }),
    ...(iteration?.name === undefined ? {} : { mapIterationOf: iteration.name }),
    ...(itemCount === undefined ? {} : { mapItemCount: itemCount }),
  };
}

/** Throttling and 5xx become `TransientServiceError` (the API answers 503); the rest keeps its name. */
function translated(operation: string, error: unknown): unknown {
  if (!isTransient(error)) return error;
  return new TransientServiceError(
    `Step Functions ${operation} failed: ${errorName(error) ?? 'Error'}: ${errorMessage(error)}`,
    { operation },
  );
}
