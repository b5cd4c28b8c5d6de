import {
  nextPollSeconds,
  CompilationOutcomes,
  type CompilationState,
  redactText,
} from '../../contracts/index.js';
import { OptimizationStatuses } from '../../ports/index.js';
import { type CompilationDeps, requireOptimizer } from '../../deployment/index.js';

/**
 * "Check compilation job" for an optimization item: one DescribeOptimizationJob. As for Neo, a
 * failed or stopped job is an outcome (its candidates are skipped with SageMaker's FailureReason),
 * and a job past its deadline is stopped and reported failed.
 */
export async function checkOptimization(
  state: CompilationState,
  deps: CompilationDeps,
): Promise<CompilationState> {
  const optimizer = requireOptimizer(deps, state.jobName);
  const job = await optimizer.describeOptimizationJob(state.jobName);
  if (job === undefined) {
    return {
      ...state,
      status: CompilationOutcomes.failed,
      failureReason: `Optimization job ${state.jobName} not found`,
    };
  }
  switch (job.status) {
    case OptimizationStatuses.completed:
      if (job.modelData === undefined) {
        return {
          ...state,
          status: CompilationOutcomes.failed,
          failureReason: 'Completed without an optimized model',
        };
      }
      deps.logger.info('Optimization completed', { jobName: state.jobName, modelData: job.modelData.uri });
      return {
        ...state,
        status: CompilationOutcomes.completed,
        artifactUri: job.modelData.uri,
        ...(job.modelData.compressed ? {} : { artifactUncompressed: true }),
        ...(job.recommendedImage === undefined ? {} : { inferenceImage: job.recommendedImage }),
        ...(job.note === undefined ? {} : { note: job.note }),
      };
    case OptimizationStatuses.failed:
    case OptimizationStatuses.stopped:
      deps.logger.warn('Optimization failed', { jobName: state.jobName, reason: job.failureReason });
      return {
        ...state,
        status: CompilationOutcomes.failed,
        // SageMaker's reason may quote the job's environment: it reaches the state and the report.
        failureReason: redactText(job.failureReason ?? `Optimization job ended ${job.status}`),
      };
    default:
      if (deps.nowEpochMs() > state.deadlineEpochMs) {
        await optimizer.stopOptimizationJob(state.jobName);
        return {
          ...state,
          status: CompilationOutcomes.failed,
          failureReason: `Optimization did not finish by its deadline (${new Date(state.deadlineEpochMs).toISOString()}); the job was stopped`,
        };
      }
      return {
        ...state,
        status: CompilationOutcomes.inProgress,
        waitSeconds: nextPollSeconds(state.waitSeconds, deps),
      };
  }
}
