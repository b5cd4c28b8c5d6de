import { describe, expect, it } from '@jest/globals';
import { cleanUpRun } from '../../../../core/steps/optimization/clean-up.js';
import { CleanUpStatuses } from '../../../../core/contracts/clean-up-account.js';
import { resourceName } from '../../../../core/contracts/names.js';
import type {
  ModelOptimizer,
  OptimizationJobDescription,
  OptimizationStatus,
  RunResources,
} from '../../../../core/ports/index.js';
import { FakeSageMaker } from '../../../support/fake-sagemaker.js';
import { silentLogger } from '../../../support/memory-object-store.js';

const RUN_ID = 'nightly-2026-11-22';
const NOW_MS = Date.parse('2026-11-22T10:00:00Z');
const RUNNING = resourceName(RUN_ID, 'optimization', 'inf2-neuron');
const ENDED = resourceName(RUN_ID, 'optimization', 'g5-awq');

/** The fake SageMaker host, listing the run's optimization jobs too (as ListOptimizationJobs does). */
class HostWithOptimizationJobs extends FakeSageMaker {
  constructor(private readonly optimizationJobs: readonly string[]) {
    super();
  }
  override async listRunResources(runId: string, namePrefix: string): Promise<RunResources> {
    return { ...(await super.listRunResources(runId, namePrefix)), optimizationJobs: this.optimizationJobs };
  }
}

/** Optimization jobs in given statuses; records the ones stopped, or fails to stop with `stopError`. */
class JobsOptimizer implements ModelOptimizer {
  readonly stopped: string[] = [];
  constructor(
    private readonly statuses: Readonly<Record<string, OptimizationStatus>>,
    private readonly stopError?: Error,
  ) {}
  createOptimizationJob(): Promise<void> {
    return Promise.reject(new Error('clean-up creates nothing'));
  }
  describeOptimizationJob(jobName: string): Promise<OptimizationJobDescription | undefined> {
    const status = this.statuses[jobName];
    return Promise.resolve(status === undefined ? undefined : { jobName, status });
  }
  stopOptimizationJob(jobName: string): Promise<void> {
    if (this.stopError !== undefined) return Promise.reject(this.stopError);
    this.stopped.push(jobName);
    return Promise.resolve();
  }
}

describe('cleanUpRun: optimization jobs', () => {
  it('stops the run’s optimization job still running and leaves the ended one alone', async () => {
    // Prepare
    const host = new HostWithOptimizationJobs([RUNNING, ENDED]);
    const optimizer = new JobsOptimizer({ [RUNNING]: 'INPROGRESS', [ENDED]: 'COMPLETED' });

    // Act
    const account = await cleanUpRun(
      { plan: { runId: RUN_ID }, error: { Error: 'States.Timeout', Cause: 'run timed out' } },
      { host, compiler: host, optimizer, logger: silentLogger, nowEpochMs: () => NOW_MS },
    );

    // Assert
    expect(optimizer.stopped).toEqual([RUNNING]);
    expect(account).toMatchObject({
      status: CleanUpStatuses.complete,
      stoppedOptimizationJobs: [RUNNING],
      left: [],
      message:
        'Clean-up deleted 0 endpoints, 0 endpoint configs, 0 models, stopped 1 optimization job; nothing left.',
    });
  });

  it('leaves a job it could not stop in the account, with the command that stops it', async () => {
    // Prepare
    const host = new HostWithOptimizationJobs([RUNNING]);
    const optimizer = new JobsOptimizer(
      { [RUNNING]: 'STARTING' },
      new Error('AccessDeniedException: not authorized'),
    );

    // Act
    const account = await cleanUpRun(
      { plan: { runId: RUN_ID } },
      { host, compiler: host, optimizer, logger: silentLogger, nowEpochMs: () => NOW_MS },
    );

    // Assert
    expect(account.left).toEqual([
      {
        kind: 'optimization-job',
        name: RUNNING,
        reason: 'Error: AccessDeniedException: not authorized',
        command: `aws sagemaker stop-optimization-job --optimization-job-name ${RUNNING}`,
      },
    ]);
  });
});
