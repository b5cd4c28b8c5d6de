import type { SFNClient } from '@aws-sdk/client-sfn';
import { isValidRunId, isTerminalStatus, type RunWorkflow } from '../../core/contracts/index.js';
import type { RunActivity, RunState } from '../../core/ports/index.js';
import { SfnExecutionReader } from './sfn-execution-reader.js';

/**
 * `RunActivity` over Step Functions `DescribeExecution`: one call per workflow on the execution ARN
 * built from that state machine's ARN and the run id (the execution name). An execution that is
 * RUNNING or PENDING_REDRIVE (ExecutionStatus, Step Functions API reference) is under way; one that
 * ended says when (`stopDate`); `ExecutionDoesNotExist` (DescribeExecution errors) means no
 * execution of that state machine has that name, or not yet one that DescribeExecution sees ("This
 * operation is eventually consistent"): the janitor decides what that is worth. Throttling and 5xx
 * surface as `TransientServiceError`, access denied as itself: the janitor keeps the resource in
 * both cases.
 *
 * DescribeExecution rather than ListExecutions(statusFilter RUNNING): the janitor asks only about
 * the few runs whose resources it may sweep, and each answer is exact for that run, where a listing
 * pages through every running execution of both machines on each sweep.
 */

export interface SfnRunActivityOptions {
  readonly client: SFNClient;
  /** The ARN of each deployed workflow's state machine; a workflow left out is not asked about. */
  readonly stateMachineArns: Readonly<Partial<Record<RunWorkflow, string>>>;
}

export class SfnRunActivity implements RunActivity {
  private readonly executions: SfnExecutionReader;
  private readonly workflows: readonly RunWorkflow[];

  constructor(options: SfnRunActivityOptions) {
    this.executions = new SfnExecutionReader(options);
    this.workflows = (Object.keys(options.stateMachineArns) as RunWorkflow[]).filter(
      (workflow) => options.stateMachineArns[workflow] !== undefined,
    );
  }

  async runState(runId: string): Promise<RunState> {
    // A tag no execution name could match (1–80 of A-Z a-z 0-9 _ -, StartExecution API reference)
    // names no run of ours: asking would only fail with InvalidArn.
    if (!isValidRunId(runId)) return { liveIn: [], found: false };
    const liveIn: RunWorkflow[] = [];
    let found = false;
    let endedEpochMs: number | undefined;
    for (const workflow of this.workflows) {
      const execution = await this.executions.describe({ workflow, runId });
      if (execution === undefined) continue;
      found = true;
      if (!isTerminalStatus(execution.status)) {
        liveIn.push(workflow);
        continue;
      }
      // An ended execution without a stop date is taken to have ended now: its grace starts over.
      const stopped = execution.stopDate?.getTime() ?? Date.now();
      endedEpochMs = Math.max(endedEpochMs ?? stopped, stopped);
    }
    if (liveIn.length > 0) return { liveIn, found };
    return endedEpochMs === undefined ? { liveIn, found } : { liveIn, found, endedEpochMs };
  }
}
