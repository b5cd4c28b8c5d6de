import { takesInputDataType } from './catalog/neo-support.js';
import { CompilationOutcomes, type CompilationState } from './contracts/workflow-state.js';
import { CompilationStatuses, type Logger, type ModelCompiler } from './ports.js';
import { CompilationFailedError } from './contracts/errors.js';
import { nextPollSeconds } from './contracts/execution-limits.js';
import type { PackagedModel } from './package-model.js';
import type { PlannedCompilation, RunPlan } from './validate-and-plan.js';

/** Time allowed beyond the job's own MaxRuntimeInSeconds for queueing and upload before giving up. */
export const COMPILATION_DEADLINE_MARGIN_SECONDS = 600;

export interface CompilationTimings {
  /** First wait before DescribeCompilationJob; each later wait doubles, up to maxPollSeconds. */
  readonly pollSeconds: number;
  readonly maxPollSeconds: number;
  readonly nowEpochMs: () => number;
}

export interface StartCompilationEvent {
  readonly plan: RunPlan;
  readonly compilation: PlannedCompilation;
  readonly packagedModel: PackagedModel;
}

export interface CompilationDeps extends CompilationTimings {
  readonly compiler: ModelCompiler;
  readonly logger: Logger;
}

/** State "Start compilation job": CreateCompilationJob for one target (idempotent by job name). */
export async function startCompilation(
  event: StartCompilationEvent,
  deps: CompilationDeps,
): Promise<CompilationState> {
  const { compilation, plan } = event;
  const model = plan.model;
  const modelDataUrl = event.packagedModel.modelDataUrl;
  if (model === undefined || modelDataUrl === undefined) {
    throw new CompilationFailedError(`Nothing to compile for ${compilation.target}: the run has no model`);
  }
  await deps.compiler.createCompilationJob({
    jobName: compilation.jobName,
    modelDataUrl,
    framework: model.framework,
    ...(model.frameworkVersion === undefined ? {} : { frameworkVersion: model.frameworkVersion }),
    ...(model.inputShape === undefined ? {} : { inputShape: model.inputShape }),
    // PyTorch inputs are compiled as float32 unless CompilerOptions says otherwise; Neuron targets
    // take no dtype (planning refuses one for them on AWS, the local compiler reads it from the model).
    ...(model.inputDataType !== undefined &&
    model.framework === 'pytorch' &&
    takesInputDataType(compilation.target)
      ? { inputDataType: model.inputDataType }
      : {}),
    target: compilation.target,
    outputUri: compilation.outputUri,
    maxRuntimeSeconds: plan.compilationMaxRuntimeSeconds,
    tags: plan.tags,
  });
  deps.logger.info('Compilation job started', { jobName: compilation.jobName, target: compilation.target });
  return {
    target: compilation.target,
    jobName: compilation.jobName,
    status: CompilationOutcomes.inProgress,
    waitSeconds: deps.pollSeconds,
    deadlineEpochMs:
      deps.nowEpochMs() + (plan.compilationMaxRuntimeSeconds + COMPILATION_DEADLINE_MARGIN_SECONDS) * 1000,
  };
}

/**
 * State "Check compilation job": one DescribeCompilationJob. A failed target is an outcome, not an
 * error: the candidates that need it are skipped with the reason and the others go on. A job past
 * its deadline is stopped and reported failed, which bounds the Wait → Check loop.
 */
export async function checkCompilation(
  state: CompilationState,
  deps: CompilationDeps,
): Promise<CompilationState> {
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
        failureReason: job.failureReason ?? `Compilation job ended ${job.status}`,
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
