import type { Logger, ModelCompiler, ModelOptimizer } from '../ports/index.js';

/**
 * What "Start compilation job" and "Check compilation job" share, and planning reads to count the
 * poll's worst case: the deadline's margin and the poll's timings.
 */

/** Time allowed beyond the job's own MaxRuntimeInSeconds for queueing and upload before giving up. */
export const COMPILATION_DEADLINE_MARGIN_SECONDS = 600;

export interface CompilationTimings {
  /** First wait before DescribeCompilationJob; each later wait doubles, up to maxPollSeconds. */
  readonly pollSeconds: number;
  readonly maxPollSeconds: number;
  readonly nowEpochMs: () => number;
}

export interface CompilationDeps extends CompilationTimings {
  readonly compiler: ModelCompiler;
  /** Runs the plan's optimization jobs (`PlannedCompilation.optimization`); Neo-only callers pass none. */
  readonly optimizer?: ModelOptimizer;
  readonly logger: Logger;
}

/** The optimizer an optimization item needs: its absence is a wiring fault, said as one. */
export function requireOptimizer(deps: CompilationDeps, jobName: string): ModelOptimizer {
  if (deps.optimizer === undefined) {
    throw new TypeError(
      `Optimization job ${jobName}: got no ModelOptimizer in the step's dependencies, expected one ` +
        "(lambdas/wiring.ts sagemakerOptimizer, or the local environment's optimizer)",
    );
  }
  return deps.optimizer;
}
