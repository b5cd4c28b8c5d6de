/**
 * The small JSON documents that travel between the optimization workflow's states. Large data
 * (worker results, reports) stays in the object store; these carry pointers. The workflow's
 * Choice states compare against the status constants exported here, which the handlers return.
 */

/** What "Check compilation job" reports; the workflow's Choice matches these. */
export const CompilationOutcomes = {
  inProgress: 'IN_PROGRESS',
  completed: 'COMPLETED',
  failed: 'FAILED',
} as const;
export type CompilationOutcome = (typeof CompilationOutcomes)[keyof typeof CompilationOutcomes];

export interface CompilationState {
  readonly target: string;
  readonly jobName: string;
  readonly status: CompilationOutcome;
  readonly waitSeconds: number;
  readonly deadlineEpochMs: number;
  readonly artifactUri?: string;
  readonly inferenceImage?: string;
  readonly failureReason?: string;
  readonly note?: string;
  /** A Catch's `{ Error, Cause }` when starting or checking the job threw. */
  readonly error?: { readonly Error?: string; readonly Cause?: string };
}

/** A candidate's progress through deploy → in service → measured, as the Choices see it. */
export const CandidateStatuses = {
  skipped: 'SKIPPED',
  deploying: 'DEPLOYING',
  inService: 'IN_SERVICE',
  measured: 'MEASURED',
  /** A load worker started late: "Aggregate load test" asks for the load test once more. */
  rerun: 'RERUN',
  /** A load worker started late again on the re-run: the figures do not describe the endpoint. */
  measurementProblem: 'MEASUREMENT_PROBLEM',
  failed: 'FAILED',
} as const;
export type CandidateStatus = (typeof CandidateStatuses)[keyof typeof CandidateStatuses];

export interface DeploymentState {
  readonly candidateId: string;
  readonly endpointName: string;
  readonly status: CandidateStatus;
  readonly waitSeconds: number;
  readonly deadlineEpochMs: number;
  /** When CreateEndpoint was asked for: billing runs from about then until the endpoint is deleted. */
  readonly createdEpochMs?: number;
  readonly skipReason?: string;
  /** Set once in service: the shared start of every load worker, and their indexes (Map items). */
  readonly loadStartEpochMs?: number;
  readonly workerIndexes?: readonly number[];
  /**
   * What DescribeEndpoint said once the endpoint was in service: the instance type and current
   * count the test ran on, and the variant whose CloudWatch metrics describe it. For an existing
   * endpoint these, not the run input's `existingEndpoint` figures, price the candidate.
   */
  readonly instanceType?: string;
  readonly instanceCount?: number;
  readonly variantName?: string;
  /** Set by "Re-run load test": this is the candidate's second (and last) load test. */
  readonly loadTestRerun?: boolean;
}

export interface WorkerOutcome {
  readonly workerIndex: number;
  readonly resultUri: string;
  readonly stoppedBecause: string;
}

export interface CandidateOutcome {
  readonly candidateId: string;
  readonly status: CandidateStatus;
  readonly resultUri?: string;
  readonly sustainableTps?: number | null;
  /** When the candidate's endpoint was created (absent for an existing endpoint). */
  readonly endpointCreatedEpochMs?: number;
  /** The endpoint as it was tested (DeploymentState's figures): what the report prices. */
  readonly instanceType?: string;
  readonly instanceCount?: number;
  readonly variantName?: string;
  readonly skipReason?: string;
  /** Why the load test's figures cannot be trusted (RERUN, MEASUREMENT_PROBLEM): late workers. */
  readonly measurementProblem?: string;
  /** A Catch's `{ Error, Cause }`, kept by the workflow when a candidate's steps failed. */
  readonly error?: { readonly Error?: string; readonly Cause?: string };
}
