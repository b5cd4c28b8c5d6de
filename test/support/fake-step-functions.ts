import {
  DescribeExecutionCommand,
  type DescribeExecutionCommandInput,
  type DescribeExecutionCommandOutput,
  ExecutionDoesNotExist,
  ExecutionNotRedrivable,
  type ExecutionRedriveStatus,
  type ExecutionStatus,
  SFNClient,
  SFNServiceException,
} from '@aws-sdk/client-sfn';
import { type AwsClientStub, mockClient } from 'aws-sdk-client-mock';

/**
 * Step Functions' DescribeExecution over Standard executions a test starts, ends and redrives, as
 * the API reference describes them:
 *
 * - `status` is one of RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED and PENDING_REDRIVE;
 *   `stopDate` only once the execution ended; `error` and `cause` only when it failed;
 * - RedriveExecution restarts a FAILED, TIMED_OUT or ABORTED execution that ended within the last
 *   14 days, under the same ARN, and refuses any other with `ExecutionNotRedrivable`;
 *   `redriveCount` is 0 until a redrive succeeds ("This count is only updated if you successfully
 *   redrive an execution"), `redriveDate` the last redrive's; `redriveStatus` is NOT_REDRIVABLE
 *   with a `redriveStatusReason` such as "Execution is RUNNING and cannot be redriven" when
 *   RedriveExecution would fail, REDRIVABLE otherwise;
 * - "This operation is eventually consistent": an execution started less than `visibleAfterMs`
 *   ago is answered `ExecutionDoesNotExist`, as a name no execution has;
 * - throttling (`throttleNext`) is the API's `ThrottlingException`.
 *
 * (DescribeExecution, RedriveExecution and ExecutionStatus, AWS Step Functions API reference.)
 * `serve()` routes a mocked `SFNClient` to it, so the project's adapters run over it unchanged.
 */

/** RedriveExecution's window: "didn't complete successfully in the last 14 days". */
const REDRIVABLE_FOR_MS = 14 * 24 * 3_600_000;

type EndStatus = Extract<ExecutionStatus, 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED'>;

interface FakeExecution {
  readonly executionArn: string;
  readonly stateMachineArn: string;
  readonly name: string;
  readonly startEpochMs: number;
  status: ExecutionStatus;
  stopEpochMs?: number;
  error?: string;
  cause?: string;
  redriveCount: number;
  redriveEpochMs?: number;
}

export interface FakeStepFunctionsOptions {
  /** The clock every date is read from. @default Date.now */
  readonly now?: () => number;
  /** How long a new execution stays invisible to DescribeExecution. @default 0 */
  readonly visibleAfterMs?: number;
}

export class FakeStepFunctions {
  private readonly executions = new Map<string, FakeExecution>();
  /** Every DescribeExecution, by execution ARN, answered or not. */
  readonly described: string[] = [];
  /** DescribeExecution calls still to be throttled. */
  throttleNext = 0;

  constructor(private readonly options: FakeStepFunctionsOptions = {}) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** StartExecution: the execution ARN is the state machine's with `:execution:` and the name. */
  start(stateMachineArn: string, name: string): string {
    const executionArn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    this.executions.set(executionArn, {
      executionArn,
      stateMachineArn,
      name,
      startEpochMs: this.now(),
      status: 'RUNNING',
      redriveCount: 0,
    });
    return executionArn;
  }

  /** The execution ends with `status` now; a FAILED one with an error and cause. */
  end(executionArn: string, status: EndStatus, failure: { error?: string; cause?: string } = {}): void {
    const execution = this.get(executionArn);
    execution.status = status;
    execution.stopEpochMs = this.now();
    if (failure.error !== undefined) execution.error = failure.error;
    if (failure.cause !== undefined) execution.cause = failure.cause;
  }

  /** A redrive asked for and not started yet: PENDING_REDRIVE, the count unchanged. */
  requestRedrive(executionArn: string): void {
    const execution = this.get(executionArn);
    this.checkRedrivable(execution);
    execution.status = 'PENDING_REDRIVE';
  }

  /** RedriveExecution: the same execution RUNNING again, its count and date updated. */
  redrive(executionArn: string): void {
    const execution = this.get(executionArn);
    if (execution.status !== 'PENDING_REDRIVE') this.checkRedrivable(execution);
    execution.status = 'RUNNING';
    execution.redriveCount += 1;
    execution.redriveEpochMs = this.now();
    delete execution.stopEpochMs;
    delete execution.error;
    delete execution.cause;
  }

  describeExecution(input: DescribeExecutionCommandInput): DescribeExecutionCommandOutput {
    const executionArn = input.executionArn ?? '';
    this.described.push(executionArn);
    if (this.throttleNext > 0) {
      this.throttleNext -= 1;
      throw new SFNServiceException({
        name: 'ThrottlingException',
        $fault: 'client',
        message: 'Rate exceeded',
        $metadata: { httpStatusCode: 400 },
      });
    }
    const execution = this.executions.get(executionArn);
    if (execution === undefined || this.now() - execution.startEpochMs < (this.options.visibleAfterMs ?? 0)) {
      throw new ExecutionDoesNotExist({
        message: `Execution Does Not Exist: '${executionArn}'`,
        $metadata: { httpStatusCode: 400 },
      });
    }
    const { reason, status: redriveStatus } = this.redriveState(execution);
    return {
      $metadata: { httpStatusCode: 200 },
      executionArn,
      stateMachineArn: execution.stateMachineArn,
      name: execution.name,
      status: execution.status,
      startDate: new Date(execution.startEpochMs),
      ...(execution.stopEpochMs === undefined ? {} : { stopDate: new Date(execution.stopEpochMs) }),
      input: '{}',
      inputDetails: { included: true },
      ...(execution.error === undefined ? {} : { error: execution.error }),
      ...(execution.cause === undefined ? {} : { cause: execution.cause }),
      redriveCount: execution.redriveCount,
      ...(execution.redriveEpochMs === undefined ? {} : { redriveDate: new Date(execution.redriveEpochMs) }),
      redriveStatus,
      ...(reason === undefined ? {} : { redriveStatusReason: reason }),
    };
  }

  /** Routes DescribeExecution of every `SFNClient` to this fake (aws-sdk-client-mock); returns the mock. */
  serve(): AwsClientStub<SFNClient> {
    const sfn = mockClient(SFNClient);
    sfn
      .on(DescribeExecutionCommand)
      .callsFake((input: DescribeExecutionCommandInput) =>
        Promise.resolve().then(() => this.describeExecution(input)),
      );
    return sfn;
  }

  private get(executionArn: string): FakeExecution {
    const execution = this.executions.get(executionArn);
    if (execution === undefined) throw new Error(`No execution ${executionArn} in the fake`);
    return execution;
  }

  private redriveState(execution: FakeExecution): { status: ExecutionRedriveStatus; reason?: string } {
    if (execution.status === 'RUNNING' || execution.status === 'SUCCEEDED') {
      return {
        status: 'NOT_REDRIVABLE',
        reason: `Execution is ${execution.status} and cannot be redriven`,
      };
    }
    // A redrive is already on its way: asking again would not start another.
    if (execution.status === 'PENDING_REDRIVE') return { status: 'NOT_REDRIVABLE' };
    if (this.now() - (execution.stopEpochMs ?? 0) > REDRIVABLE_FOR_MS) {
      return { status: 'NOT_REDRIVABLE', reason: 'Execution redrivable period exceeded' };
    }
    return { status: 'REDRIVABLE' };
  }

  private checkRedrivable(execution: FakeExecution): void {
    const { status, reason } = this.redriveState(execution);
    if (status !== 'REDRIVABLE') {
      throw new ExecutionNotRedrivable({
        message: reason ?? `Execution ${execution.executionArn} cannot be redriven`,
        $metadata: { httpStatusCode: 400 },
      });
    }
  }
}
