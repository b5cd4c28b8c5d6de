import {
  nextPollSeconds,
  CompilationOutcomes,
  type CompilationState,
  redactText,
} from '../../contracts/index.js';
import { CompilationStatuses } from '../../ports/index.js';
import type { CompilationDeps } from '../../deployment/index.js';
import { checkOptimization } from './check-optimization.js';

/**
 * State "Check compilation job": one DescribeCompilationJob. A failed target is an outcome, not an
 * error: the candidates that need it are skipped with the reason and the others go on. A job past
 * its deadline is stopped and reported failed, which bounds the Wait → Check loop. An optimization
 * item (`kind: 'optimization'`) is checked by check-optimization.ts.
 */
export async function checkCompilation(
  state: CompilationState,
  deps: CompilationDeps,
): Promise<CompilationState> {
  if (state.kind === 'optimization') return checkOptimization(state, deps);
  const job = await deps.compiler.describeCompilationJob(state.jobName);
  if (job === undefined) {
    return {
      ...state,
      status: CompilationOutcomes.failed,
      failureReason: `Compilation job ${state.jobName} not found`,
    };
  }
  switch (job.status) {
    case CompilationStatuses.completed:
      if (job.artifactUri === undefined) {
        return {
          ...state,
          status: CompilationOutcomes.failed,
          failureReason: 'Completed without a model artifact',
        };
      }
      deps.logger.info('Compilation completed', { jobName: state.jobName, artifactUri: job.artifactUri });
      return {
        ...state,
        status: CompilationOutcomes.completed,
        artifactUri: job.artifactUri,
        ...(job.inferenceImage === undefined ? {} : { inferenceImage: job.inferenceImage }),
        ...(job.note === undefined ? {} : { note: job.note }),
      };
    case CompilationStatuses.failed:
    case CompilationStatuses.stopped:
      deps.logger.warn('Compilation failed', { jobName: state.jobName, reason: job.failureReason });
      return {
        ...state,
        status: CompilationOutcomes.failed,
        // SageMaker's reason may quote the job's environment: it reaches the state and the report.
        failureReason: redactText(job.failureReason ?? `Compilation job ended ${job.status}`),
      };
    default:
      if (deps.nowEpochMs() > state.deadlineEpochMs) {
        await deps.compiler.stopCompilationJob(state.jobName);
        return {
          ...state,
          status: CompilationOutcomes.failed,
          failureReason: `Compilation did not finish by its deadline (${new Date(state.deadlineEpochMs).toISOString()}); the job was stopped`,
        };
      }
      return {
        ...state,
        status: CompilationOutcomes.inProgress,
        waitSeconds: nextPollSeconds(state.waitSeconds, deps),
      };
  }
}
