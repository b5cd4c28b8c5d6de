import { randomUUID } from 'node:crypto';
import {
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  type ExecutionRedriveStatus,
  type ExecutionStatus,
  type HistoryEvent,
  type HistoryEventType,
  InvalidArn,
  InvalidExecutionInput,
  InvalidName,
  InvalidToken,
  StateMachineDoesNotExist,
} from '@aws-sdk/client-sfn';
import type { JsonValue, RunnerEvent, RunResult } from '../../../local/runner/index.js';

type Input = Record<string, unknown>;

/**
 * Step Functions' executions of Standard state machines, as the run API, the triggers, the janitor,
 * the failed-run clean-up and the run summary meet them (AWS Step Functions API reference:
 * StartExecution, DescribeExecution, ListExecutions, StopExecution, GetExecutionHistory,
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_Operations.html):
 *
 * - StartExecution refuses a name with white space, brackets, wildcards, the special characters
 *   `" # % \ ^ | ~ \` $ & , ; : /` or control characters (`InvalidName`), an input that is not JSON
 *   or over 256 KiB of UTF-8 (`InvalidExecutionInput`), an unknown state machine
 *   (`StateMachineDoesNotExist`). It is idempotent: the same name and input while the execution
 *   is RUNNING answers the first start again; another input, or a closed execution, is
 *   `ExecutionAlreadyExists` (names are reserved for 90 days).
 * - DescribeExecution answers status, dates, input, output or error and cause, and the redrive
 *   fields (`redriveCount` 0 until a redrive, `redriveStatus` NOT_REDRIVABLE while RUNNING or once
 *   SUCCEEDED, REDRIVABLE for FAILED, TIMED_OUT and ABORTED executions within 14 days).
 * - ListExecutions lists newest first ("Running executions are sorted by their startDate or
 *   redriveDate, and other executions are sorted by their stopDate"), filtered by `statusFilter`,
 *   `maxResults` per page (0 means the default of 100), an opaque `nextToken`; a token it did not
 *   hand out is `InvalidToken`.
 * - StopExecution ends a RUNNING execution ABORTED with its error and cause and answers the stop
 *   date; the reference documents no error for a closed one, which keeps its end.
 * - GetExecutionHistory pages the events (oldest first, or newest with `reverseOrder`), without
 *   the events' input and output when `includeExecutionData` is false.
 * - An ARN that is not an execution's (or state machine's) is `InvalidArn`; an unknown execution
 *   `ExecutionDoesNotExist`.
 *
 * An execution the run API starts is RUNNING until a test runs its state machine (`complete`),
 * which records the runner's events as its history and its end as the execution's.
 */

/** StartExecution: "The string that contains the JSON input data for the execution" (256 KiB quota). */
const MAX_INPUT_BYTES = 256 * 1024;
/** ListExecutions and GetExecutionHistory: "The default is 100 and the maximum allowed page size is 1000." */
const DEFAULT_PAGE_SIZE = 100;
/** RedriveExecution: executions "that didn't complete successfully in the last 14 days". */
const REDRIVABLE_FOR_MS = 14 * 24 * 3_600_000;

/** StartExecution `name`: what a name must not contain besides control characters. */
const FORBIDDEN_NAME_CHARACTERS = /[\s<>{}[\]?*"#%\\^|~`$&,;:/]/;

/** Control characters as the AWS references name them: U+0000–U+001F and U+007F–U+009F. */
export function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

const STATE_MACHINE_ARN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:[^:]+$/;
const EXECUTION_ARN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:execution:[^:]+:[^:]+$/;

interface Execution {
  readonly executionArn: string;
  readonly stateMachineArn: string;
  readonly name: string;
  readonly input: string;
  readonly startDate: Date;
  status: ExecutionStatus;
  stopDate?: Date;
  output?: string;
  error?: string;
  cause?: string;
  history: HistoryEvent[];
}

const metadata = { $metadata: { httpStatusCode: 400 } } as const;

export class FakeStepFunctionsExecutions {
  private readonly stateMachines = new Set<string>();
  private readonly executions = new Map<string, Execution>();
  private readonly pageTokens = new Map<string, { readonly operation: string; readonly offset: number }>();
  private clock = Date.UTC(2026, 0, 1);

  /** A deployed state machine: StartExecution and ListExecutions accept its ARN. */
  addStateMachine(stateMachineArn: string): void {
    this.stateMachines.add(stateMachineArn);
  }

  /** Each answer a second later than the one before: the sort orders are decided, not tied. */
  private now(): Date {
    this.clock += 1000;
    return new Date(this.clock);
  }

  /** An execution's ARN, name and input, as StartExecution stored them. */
  execution(executionArn: string): { readonly name: string; readonly input: JsonValue; status: string } {
    const execution = this.find(executionArn);
    return {
      name: execution.name,
      input: JSON.parse(execution.input) as JsonValue,
      status: execution.status,
    };
  }

  /**
   * The end of a RUNNING execution, as the runner ran its state machine: its status, output or
   * error and cause, and the runner's events as its history.
   */
  complete(executionArn: string, result: RunResult, events: readonly RunnerEvent[]): void {
    const execution = this.find(executionArn);
    if (execution.status !== 'RUNNING') {
      throw new Error(
        `FakeStepFunctionsExecutions: ${executionArn} is ${execution.status}, expected RUNNING`,
      );
    }
    execution.status = result.status;
    execution.stopDate = this.now();
    if (result.status === 'SUCCEEDED') execution.output = JSON.stringify(result.output);
    if (result.status === 'FAILED' || result.status === 'TIMED_OUT') {
      execution.error = result.error;
      execution.cause = result.cause;
    }
    execution.history = historyOf(events);
  }

  handle(command: string, input: Input): unknown {
    switch (command) {
      case 'StartExecutionCommand':
        return this.start(input);
      case 'DescribeExecutionCommand':
        return this.describe(String(input.executionArn));
      case 'ListExecutionsCommand':
        return this.list(input);
      case 'StopExecutionCommand':
        return this.stop(input);
      case 'GetExecutionHistoryCommand':
        return this.historyPage(input);
      default:
        throw new Error(`FakeStepFunctionsExecutions: ${command} is not faked; add it to the fake`);
    }
  }

  private start(input: Input): unknown {
    const stateMachineArn = String(input.stateMachineArn);
    this.checkStateMachine(stateMachineArn);
    const name = typeof input.name === 'string' ? input.name : randomUUID();
    if (FORBIDDEN_NAME_CHARACTERS.test(name) || hasControlCharacter(name)) {
      throw new InvalidName({ message: `Invalid Name: '${name}'`, ...metadata });
    }
    const text = typeof input.input === 'string' ? input.input : '{}';
    if (Buffer.byteLength(text, 'utf8') > MAX_INPUT_BYTES) {
      throw new InvalidExecutionInput({
        message: `Input size exceeds the maximum size of ${MAX_INPUT_BYTES} bytes`,
        ...metadata,
      });
    }
    try {
      JSON.parse(text);
    } catch {
      throw new InvalidExecutionInput({
        message: `Invalid State Machine Execution Input: '${text}'`,
        ...metadata,
      });
    }
    const executionArn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const existing = this.executions.get(executionArn);
    if (existing !== undefined) {
      if (existing.status === 'RUNNING' && existing.input === text) {
        return { executionArn, startDate: existing.startDate };
      }
      throw new ExecutionAlreadyExists({
        message: `Execution Already Exists: '${executionArn}'`,
        ...metadata,
      });
    }
    const startDate = this.now();
    this.executions.set(executionArn, {
      executionArn,
      stateMachineArn,
      name,
      input: text,
      startDate,
      status: 'RUNNING',
      history: [{ id: 1, previousEventId: 0, timestamp: startDate, type: 'ExecutionStarted' }],
    });
    return { executionArn, startDate };
  }

  private describe(executionArn: string): unknown {
    const execution = this.find(executionArn);
    const redrive = redriveStateOf(execution, this.clock);
    return {
      executionArn,
      stateMachineArn: execution.stateMachineArn,
      name: execution.name,
      status: execution.status,
      startDate: execution.startDate,
      ...(execution.stopDate === undefined ? {} : { stopDate: execution.stopDate }),
      input: execution.input,
      inputDetails: { included: true },
      ...(execution.output === undefined
        ? {}
        : { output: execution.output, outputDetails: { included: true } }),
      ...(execution.error === undefined ? {} : { error: execution.error }),
      ...(execution.cause === undefined ? {} : { cause: execution.cause }),
      redriveCount: 0,
      redriveStatus: redrive.status,
      ...(redrive.reason === undefined ? {} : { redriveStatusReason: redrive.reason }),
    };
  }

  private list(input: Input): unknown {
    const stateMachineArn = String(input.stateMachineArn);
    this.checkStateMachine(stateMachineArn);
    const sortDate = (execution: Execution): number =>
      (execution.status === 'RUNNING'
        ? execution.startDate
        : (execution.stopDate ?? execution.startDate)
      ).getTime();
    const matching = [...this.executions.values()]
      .filter((execution) => execution.stateMachineArn === stateMachineArn)
      .filter((execution) => input.statusFilter === undefined || execution.status === input.statusFilter)
      .sort((a, b) => sortDate(b) - sortDate(a));
    const { items, nextToken } = this.page('ListExecutions', matching, input);
    return {
      executions: items.map((execution) => ({
        executionArn: execution.executionArn,
        stateMachineArn: execution.stateMachineArn,
        name: execution.name,
        status: execution.status,
        startDate: execution.startDate,
        ...(execution.stopDate === undefined ? {} : { stopDate: execution.stopDate }),
        redriveCount: 0,
      })),
      ...(nextToken === undefined ? {} : { nextToken }),
    };
  }

  private stop(input: Input): unknown {
    const execution = this.find(String(input.executionArn));
    if (execution.status === 'RUNNING') {
      execution.status = 'ABORTED';
      execution.stopDate = this.now();
      if (typeof input.error === 'string') execution.error = input.error;
      if (typeof input.cause === 'string') execution.cause = input.cause;
      execution.history.push({
        id: execution.history.length + 1,
        previousEventId: execution.history.length,
        timestamp: execution.stopDate,
        type: 'ExecutionAborted',
        executionAbortedEventDetails: {
          ...(execution.error === undefined ? {} : { error: execution.error }),
          ...(execution.cause === undefined ? {} : { cause: execution.cause }),
        },
      });
    }
    return { stopDate: execution.stopDate };
  }

  private historyPage(input: Input): unknown {
    const execution = this.find(String(input.executionArn));
    const ordered = input.reverseOrder === true ? [...execution.history].reverse() : execution.history;
    const withoutData = input.includeExecutionData === false ? ordered.map(withoutExecutionData) : ordered;
    const { items, nextToken } = this.page('GetExecutionHistory', withoutData, input);
    return { events: items, ...(nextToken === undefined ? {} : { nextToken }) };
  }

  private page<T>(
    operation: string,
    all: readonly T[],
    input: Input,
  ): { readonly items: readonly T[]; readonly nextToken?: string } {
    let offset = 0;
    if (typeof input.nextToken === 'string') {
      const token = this.pageTokens.get(input.nextToken);
      if (token?.operation !== operation) {
        throw new InvalidToken({ message: `Invalid Token: '${input.nextToken}'`, ...metadata });
      }
      offset = token.offset;
    }
    const size =
      typeof input.maxResults === 'number' && input.maxResults > 0 ? input.maxResults : DEFAULT_PAGE_SIZE;
    const items = all.slice(offset, offset + size);
    if (offset + size >= all.length) return { items };
    const nextToken = `token-${this.pageTokens.size + 1}`;
    this.pageTokens.set(nextToken, { operation, offset: offset + size });
    return { items, nextToken };
  }

  private checkStateMachine(stateMachineArn: string): void {
    if (!STATE_MACHINE_ARN.test(stateMachineArn)) {
      throw new InvalidArn({ message: `Invalid Arn: '${stateMachineArn}'`, ...metadata });
    }
    if (!this.stateMachines.has(stateMachineArn)) {
      throw new StateMachineDoesNotExist({
        message: `State Machine Does Not Exist: '${stateMachineArn}'`,
        ...metadata,
      });
    }
  }

  private find(executionArn: string): Execution {
    if (!EXECUTION_ARN.test(executionArn)) {
      throw new InvalidArn({ message: `Invalid Arn: '${executionArn}'`, ...metadata });
    }
    const execution = this.executions.get(executionArn);
    if (execution === undefined) {
      throw new ExecutionDoesNotExist({
        message: `Execution Does Not Exist: '${executionArn}'`,
        ...metadata,
      });
    }
    return execution;
  }
}

function redriveStateOf(
  execution: Execution,
  nowMs: number,
): { readonly status: ExecutionRedriveStatus; readonly reason?: string } {
  if (execution.status === 'RUNNING' || execution.status === 'SUCCEEDED') {
    return { status: 'NOT_REDRIVABLE', reason: `Execution is ${execution.status} and cannot be redriven` };
  }
  if (nowMs - (execution.stopDate?.getTime() ?? nowMs) > REDRIVABLE_FOR_MS) {
    return { status: 'NOT_REDRIVABLE', reason: 'Execution redrivable period exceeded' };
  }
  return { status: 'REDRIVABLE' };
}

/** An event without the data `includeExecutionData: false` leaves out (its input and output). */
function withoutExecutionData(event: HistoryEvent): HistoryEvent {
  const copy: Record<string, unknown> = { ...event };
  for (const [key, value] of Object.entries(event)) {
    if (!key.endsWith('EventDetails') || typeof value !== 'object' || value === null) continue;
    const { input: _input, output: _output, ...rest } = value as Record<string, unknown>;
    copy[key] = rest;
  }
  return copy as unknown as HistoryEvent;
}

/** Step Functions names a state's events after its type: `TaskStateEntered`, `ChoiceStateExited`. */
function stateEventType(stateType: string, phase: 'Entered' | 'Exited'): HistoryEventType {
  return `${stateType}State${phase}` as HistoryEventType;
}

/** The runner's events as Step Functions' history events, numbered from 1, each after the one before. */
function historyOf(events: readonly RunnerEvent[]): HistoryEvent[] {
  const history: HistoryEvent[] = [];
  const push = (event: Omit<HistoryEvent, 'id' | 'previousEventId'>): void => {
    history.push({ ...event, id: history.length + 1, previousEventId: history.length });
  };
  for (const event of events) {
    const timestamp = new Date(event.timestamp);
    switch (event.type) {
      case 'ExecutionStarted':
        push({
          type: 'ExecutionStarted',
          timestamp,
          executionStartedEventDetails: { input: JSON.stringify(event.input) },
        });
        break;
      case 'ExecutionSucceeded':
        push({
          type: 'ExecutionSucceeded',
          timestamp,
          executionSucceededEventDetails: { output: JSON.stringify(event.output) },
        });
        break;
      case 'ExecutionFailed':
        push({
          type: 'ExecutionFailed',
          timestamp,
          executionFailedEventDetails: { error: event.error, cause: event.cause },
        });
        break;
      case 'ExecutionAborted':
      case 'ExecutionTimedOut':
        push({ type: event.type, timestamp });
        break;
      case 'StateEntered':
        push({
          type: stateEventType(event.stateType, 'Entered'),
          timestamp,
          stateEnteredEventDetails: { name: event.stateName, input: JSON.stringify(event.input) },
        });
        break;
      case 'StateExited':
        push({
          type: stateEventType(event.stateType, 'Exited'),
          timestamp,
          stateExitedEventDetails: { name: event.stateName, output: JSON.stringify(event.output) },
        });
        break;
      case 'StateFailed':
        push({
          type: 'TaskFailed',
          timestamp,
          taskFailedEventDetails: {
            resourceType: 'lambda',
            resource: 'invoke',
            error: event.error,
            cause: event.cause,
          },
        });
        break;
      case 'MapIterationStarted':
      case 'MapIterationSucceeded':
        push({
          type: event.type,
          timestamp,
          [event.type === 'MapIterationStarted'
            ? 'mapIterationStartedEventDetails'
            : 'mapIterationSucceededEventDetails']: { name: event.mapStateName, index: event.index },
        });
        break;
      default:
        break;
    }
  }
  return history;
}
