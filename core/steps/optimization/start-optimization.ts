import {
  CompilationFailedError,
  CompilationOutcomes,
  type CompilationState,
  type PlannedOptimization,
  type StartCompilationEvent,
} from '../../contracts/index.js';
import {
  COMPILATION_DEADLINE_MARGIN_SECONDS,
  type CompilationDeps,
  requireOptimizer,
} from '../../deployment/index.js';

/**
 * "Start compilation job" for an optimization item of the compile Map: CreateOptimizationJob
 * (idempotent by job name) with the run's model, tags and `compilation.maxRuntimeSeconds`, then the
 * same state as a Neo job's, so the same Wait → Check loop and deadline bound it.
 */
export async function startOptimization(
  event: StartCompilationEvent,
  optimization: PlannedOptimization,
  deps: CompilationDeps,
): Promise<CompilationState> {
  const { compilation, plan } = event;
  const model = plan.model;
  // The job reads the model's files uncompressed under a prefix, as "Package model" unpacked them.
  const modelPrefixUri = event.packagedModel.modelPrefixUri;
  if (model === undefined || modelPrefixUri === undefined) {
    throw new CompilationFailedError(
      `Nothing to optimize for ${compilation.target}: the run has no unpacked model data (packagedModel.modelPrefixUri)`,
    );
  }
  await requireOptimizer(deps, compilation.jobName).createOptimizationJob({
    jobName: compilation.jobName,
    modelDataUrl: modelPrefixUri,
    ...(optimization.acceptEula === undefined ? {} : { acceptEula: optimization.acceptEula }),
    deploymentInstanceType: optimization.deploymentInstanceType,
    ...(optimization.environment === undefined ? {} : { environment: optimization.environment }),
    techniques: optimization.techniques,
    outputUri: compilation.outputUri,
    maxRuntimeSeconds: plan.compilationMaxRuntimeSeconds,
    tags: plan.tags,
    framework: model.framework,
  });
  deps.logger.info('Optimization job started', {
    jobName: compilation.jobName,
    optimization: compilation.target,
    deploymentInstanceType: optimization.deploymentInstanceType,
  });
  return {
    target: compilation.target,
    kind: 'optimization',
    jobName: compilation.jobName,
    status: CompilationOutcomes.inProgress,
    waitSeconds: deps.pollSeconds,
    deadlineEpochMs:
      deps.nowEpochMs() + (plan.compilationMaxRuntimeSeconds + COMPILATION_DEADLINE_MARGIN_SECONDS) * 1000,
  };
}
