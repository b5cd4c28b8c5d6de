import { takesInputDataType } from '../../catalog/index.js';
import {
  CompilationFailedError,
  CompilationOutcomes,
  type CompilationState,
  type StartCompilationEvent,
} from '../../contracts/index.js';
import { COMPILATION_DEADLINE_MARGIN_SECONDS, type CompilationDeps } from '../../deployment/index.js';
import { startOptimization } from './start-optimization.js';

/**
 * State "Start compilation job": CreateCompilationJob for one target (idempotent by job name), or
 * CreateOptimizationJob for an optimization item of the same Map (start-optimization.ts).
 */
export async function startCompilation(
  event: StartCompilationEvent,
  deps: CompilationDeps,
): Promise<CompilationState> {
  const { compilation, plan } = event;
  if (compilation.optimization !== undefined) return startOptimization(event, compilation.optimization, deps);
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
    ...(compilation.compilerOptions === undefined ? {} : { compilerOptions: compilation.compilerOptions }),
    ...(compilation.quantization === undefined ? {} : { quantization: compilation.quantization }),
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
