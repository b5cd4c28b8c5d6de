/**
 * Errors with literal names. Step Functions matches Retry/Catch on the error name a Lambda throws
 * (`errorType`), so each name is exported as a constant that the workflows import: one string
 * serves both sides. Never rethrow as `new Error(message)`: it loses the name.
 */

export const ErrorNames = {
  invalidRunInput: 'InvalidRunInputError',
  budgetExceeded: 'BudgetExceededError',
  compilationFailed: 'CompilationFailedError',
  endpointFailed: 'EndpointFailedError',
  quotaExceeded: 'QuotaExceededError',
  modelErrors: 'ModelErrorsError',
  loadTestAborted: 'LoadTestAbortedError',
  inferenceFailed: 'InferenceFailedError',
  transientService: 'TransientServiceError',
  resourceNotFound: 'ResourceNotFoundError',
  noServingImage: 'NoServingImageError',
  resourceBusy: 'ResourceBusyError',
  inferenceIdInUse: 'InferenceIdInUseError',
  requestRefused: 'RequestRefusedError',
  cleanUpIncomplete: 'CleanUpIncompleteError',
  /** A redriven optimization run reached a step that works on the run's live endpoints: start a new run. */
  runRedriven: 'RunRedrivenError',
  /**
   * The run measured what it could but recommends nothing (no candidate met the SLA, or every
   * candidate failed): thrown by no Lambda, it is the optimization workflow's own end state "No
   * recommendation", whose cause (JSON) names the outcome and the report's location.
   */
  noRecommendation: 'NoRecommendationError',
  /**
   * The async run sent every input but none completed: thrown by no Lambda, it is the async
   * workflow's own end state "No input completed", whose cause (JSON) names the outcome, the
   * counts, the failures' reasons and the summary's location.
   */
  noInputCompleted: 'NoInputCompletedError',
} as const;

export type ErrorName = (typeof ErrorNames)[keyof typeof ErrorNames];

/** Base class: every project error carries a literal name and optional structured details. */
export abstract class ProjectError extends Error {
  abstract override readonly name: ErrorName;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message, options);
    this.details = details;
  }
}

/** One problem found in a run input: the field path, what was given and what was expected. */
export interface InputIssue {
  readonly field: string;
  readonly given: string;
  readonly expected: string;
}

/**
 * The one wording of input issues, `field: got …, expected …` joined by `; `: the run input's
 * errors and every event parser (janitor, approval and execution-status events) say it alike.
 */
export function describeIssues(issues: readonly InputIssue[]): string {
  return issues.map((i) => `${i.field}: got ${i.given}, expected ${i.expected}`).join('; ');
}

export class InvalidRunInputError extends ProjectError {
  override readonly name = ErrorNames.invalidRunInput;
  readonly issues: readonly InputIssue[];

  constructor(issues: readonly InputIssue[]) {
    super(`Invalid run input: ${describeIssues(issues)}`, { issues });
    this.issues = issues;
  }
}

export class BudgetExceededError extends ProjectError {
  override readonly name = ErrorNames.budgetExceeded;
}

export class CompilationFailedError extends ProjectError {
  override readonly name = ErrorNames.compilationFailed;
}

export class EndpointFailedError extends ProjectError {
  override readonly name = ErrorNames.endpointFailed;
}

/** SageMaker `ResourceLimitExceeded`: an account quota (instances of a type, endpoints) is reached. */
export class QuotaExceededError extends ProjectError {
  override readonly name = ErrorNames.quotaExceeded;
}

/** The model container answered with errors during a load test (4xx/5xx from the model). */
export class ModelErrorsError extends ProjectError {
  override readonly name = ErrorNames.modelErrors;
}

export class LoadTestAbortedError extends ProjectError {
  override readonly name = ErrorNames.loadTestAborted;
}

export class InferenceFailedError extends ProjectError {
  override readonly name = ErrorNames.inferenceFailed;
}

/** Throttling or a 5xx from an AWS API: safe to retry with backoff. */
export class TransientServiceError extends ProjectError {
  override readonly name = ErrorNames.transientService;
}

export class ResourceNotFoundError extends ProjectError {
  override readonly name = ErrorNames.resourceNotFound;
}

/**
 * The maintained table of serving images has no image for the asked framework, version, region and
 * hardware. Not retryable: the run input must change, or `model.image` must name the image.
 */
export class NoServingImageError extends ProjectError {
  override readonly name = ErrorNames.noServingImage;
}

/**
 * No recommendation: the error name of the optimization workflow's "No recommendation" Fail state
 * (the workflow raises it, never a Lambda); this class names it where code builds or matches it.
 */
export class NoRecommendationError extends ProjectError {
  override readonly name = ErrorNames.noRecommendation;
}

/**
 * The errors of the workflows' own end states for a run that ran to its end without a result (its
 * report or summary written, its clean-up done on the success path): "No recommendation" and "No
 * input completed". Nothing of such a run is left for the failed-run clean-up.
 */
export const RAN_TO_END_ERRORS: readonly string[] = [
  ErrorNames.noRecommendation,
  ErrorNames.noInputCompleted,
];

/** Whether a FAILED execution's error says it ran to its end without a result (see RAN_TO_END_ERRORS). */
export function ranToEndWithoutResult(error: string | undefined): boolean {
  return error !== undefined && RAN_TO_END_ERRORS.includes(error);
}

/** A readable one-line description of anything thrown, for failure reasons in reports. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * A resource cannot be changed yet (e.g. an endpoint still `Creating` cannot be deleted): the
 * workflow retries this by name with a long interval until the resource settles.
 */
export class ResourceBusyError extends ProjectError {
  override readonly name = ErrorNames.resourceBusy;
}

/**
 * An async inference's id already holds the task token of a task that Step Functions still reports
 * as waiting: another live task owns the id, so its token is not overwritten. Not retryable.
 */
export class InferenceIdInUseError extends ProjectError {
  override readonly name = ErrorNames.inferenceIdInUse;
}

/**
 * An AWS service refused the request itself as invalid (e.g. DynamoDB's `ValidationException`, "OK
 * to retry? No" in DynamoDB's error reference): sent again, the same request gets the same answer.
 * Never retried; the input that made the request must change.
 */
export class RequestRefusedError extends ProjectError {
  override readonly name = ErrorNames.requestRefused;
}

/**
 * A clean-up tried everything and something is still there (an endpoint still Creating, a delete
 * refused): thrown after the last attempt, never before, so that whatever invoked it retries it.
 * `details.account` is the clean-up's account (core/contracts/clean-up-account.ts).
 */
export class CleanUpIncompleteError extends ProjectError {
  override readonly name = ErrorNames.cleanUpIncomplete;
}

/**
 * A redriven execution resumed a step that measures or changes the run's endpoints: what it would
 * resume on is gone (core/shared/redrive.ts). Not retryable, and never caught per candidate:
 * the run fails, is cleaned up, and says to start a new run.
 */
export class RunRedrivenError extends ProjectError {
  override readonly name = ErrorNames.runRedriven;
}
