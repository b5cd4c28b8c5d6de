import type { Logger, ModelCompiler } from '../ports.js';

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
  readonly logger: Logger;
}
