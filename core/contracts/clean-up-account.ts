import { KEEP_TAG } from './names.js';
import { isRecord } from './records.js';

/**
 * The account a run's clean-up gives of itself: what it deleted, what it kept on purpose, what it
 * could not delete and why, with the AWS CLI command that finishes the job by hand. Every clean-up
 * returns one (the workflows' clean-up states, the failed-run Lambda, the local CLIs), the run's
 * output carries it, and the run summary tells it.
 */

/** The clean-up's state, as the workflows' Choice states see it. */
export const CleanUpStatuses = {
  /** Everything the run created is gone (except what it kept on purpose). */
  complete: 'COMPLETE',
  /** Endpoints are still changing (Creating, Updating): the workflow waits, then cleans up again. */
  waiting: 'WAITING',
  /** Done trying: `left` names what is still there, why, and how to delete it. */
  incomplete: 'INCOMPLETE',
  /** The clean-up step itself failed (a timeout, a crash): set by the workflow, not by the step. */
  failed: 'FAILED',
} as const;
export type CleanUpStatus = (typeof CleanUpStatuses)[keyof typeof CleanUpStatuses];

/** What clean-up deletes, in the order it deletes them. */
export type CleanUpResourceKind =
  | 'scalable-target'
  | 'endpoint'
  | 'endpoint-config'
  | 'model'
  | 'compilation-job'
  | 'optimization-job'
  | 'keep-tag';

/** A resource clean-up could not delete (or, for `keep-tag`, could not mark as kept). */
export interface LeftResource {
  readonly kind: CleanUpResourceKind;
  readonly name: string;
  /** Why: the error SageMaker returned, or the state the resource stayed in. */
  readonly reason: string;
  /** The AWS CLI command that finishes the job by hand (add `--region` as needed). */
  readonly command: string;
}

export interface CleanUpAccount {
  readonly status: CleanUpStatus;
  /** Deleted by this clean-up, over every round of it. */
  readonly endpoints: readonly string[];
  readonly endpointConfigs: readonly string[];
  readonly models: readonly string[];
  readonly stoppedCompilationJobs: readonly string[];
  /** Optimization jobs stopped (CreateOptimizationJob); absent in accounts of runs that had none. */
  readonly stoppedOptimizationJobs?: readonly string[];
  /** Scalable targets deregistered (async endpoints, a ramp endpoint left registered), as `endpoint/<name>/variant/<variant>`. */
  readonly deregisteredScaling: readonly string[];
  /** Kept on purpose (`keep-recommended`, `keepAfterRun`): endpoint, config and model names. */
  readonly kept: readonly string[];
  /** Still there after this round, with the reason and the command. */
  readonly left: readonly LeftResource[];
  /** Endpoints still Creating/Updating that a later round deletes (status WAITING). */
  readonly waitingFor: readonly string[];
  /** How long the workflow waits before the next round (status WAITING). */
  readonly waitSeconds: number;
  /** Rounds so far: the wait backs off with them. */
  readonly round: number;
  /** After this instant, endpoints still changing are left (with their command) instead of awaited. */
  readonly deadlineEpochMs: number;
  /** One readable paragraph: what the run's output, its summary and the CLIs show. */
  readonly message: string;
  /**
   * On a failure path: the error the run ends with, the original one with this account added to
   * its cause (see `withCleanUpAccount`), so that the Fail state, DescribeExecution, the run summary
   * and the CLIs all tell what clean-up left.
   */
  readonly runError?: { readonly Error: string; readonly Cause: string };
}

/** What the workflow records when the clean-up step itself failed (see workflows/clean-up-loop.ts). */
export interface FailedCleanUp {
  readonly status: typeof CleanUpStatuses.failed;
  readonly message: string;
}

/** The key of a failed run's cause (JSON) that holds the clean-up's message. */
export const CAUSE_CLEAN_UP_KEY = 'cleanUp';

/**
 * A failed run's error with one more entry in its cause. Causes are JSON when a Lambda threw
 * (`errorType`, `errorMessage`, `trace`): the entry becomes one more key, so that readers of
 * `errorMessage` are unaffected; a plain-text cause becomes `errorMessage`.
 */
export function withCauseEntry(
  error: { readonly Error?: string; readonly Cause?: string },
  key: string,
  value: unknown,
): { readonly Error: string; readonly Cause: string } {
  let body: Record<string, unknown> = error.Cause === undefined ? {} : { errorMessage: error.Cause };
  try {
    const parsed: unknown = error.Cause === undefined ? undefined : JSON.parse(error.Cause);
    if (isRecord(parsed)) body = parsed;
  } catch {
    // Plain text: kept as errorMessage.
  }
  return {
    Error: error.Error ?? 'States.Runtime',
    Cause: JSON.stringify({ ...body, [key]: value }),
  };
}

/** A failed run's error with the clean-up's account added to its cause (see `withCauseEntry`). */
export function withCleanUpAccount(
  error: { readonly Error?: string; readonly Cause?: string },
  message: string,
): { readonly Error: string; readonly Cause: string } {
  return withCauseEntry(error, CAUSE_CLEAN_UP_KEY, message);
}

/** The clean-up's message a failed run's cause carries, if any (see `withCleanUpAccount`). */
export function cleanUpInCause(cause: string | undefined): string | undefined {
  if (cause === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(cause);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const message = (parsed as Record<string, unknown>)[CAUSE_CLEAN_UP_KEY];
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}

/** The AWS CLI command that deletes (or stops, or tags) `name` by hand. */
export function commandToFinish(kind: CleanUpResourceKind, name: string, variantName = 'AllTraffic'): string {
  switch (kind) {
    case 'scalable-target':
      return (
        'aws application-autoscaling deregister-scalable-target --service-namespace sagemaker ' +
        `--scalable-dimension sagemaker:variant:DesiredInstanceCount --resource-id endpoint/${name}/variant/${variantName}`
      );
    case 'endpoint':
      return `aws sagemaker delete-endpoint --endpoint-name ${name}`;
    case 'endpoint-config':
      return `aws sagemaker delete-endpoint-config --endpoint-config-name ${name}`;
    case 'model':
      return `aws sagemaker delete-model --model-name ${name}`;
    case 'compilation-job':
      return `aws sagemaker stop-compilation-job --compilation-job-name ${name}`;
    case 'optimization-job':
      return `aws sagemaker stop-optimization-job --optimization-job-name ${name}`;
    case 'keep-tag':
      return `aws sagemaker add-tags --resource-arn <arn of endpoint ${name}> --tags Key=${KEEP_TAG.key},Value=${KEEP_TAG.value}`;
  }
}

/** Whether an account leaves something behind that bills or needs a hand. */
export function leavesSomething(account: Pick<CleanUpAccount, 'status' | 'left'>): boolean {
  return account.status !== CleanUpStatuses.complete || account.left.length > 0;
}

/**
 * Clean-up's wait for endpoints still Creating or Updating: as long as "Deploy candidate" gives an
 * endpoint to reach InService (past it, SageMaker has either settled it or it is stuck, and the
 * account says so), in rounds that back off from 30 s to 2 min as the endpoint polls do. The history budget (planning/history-model.ts) counts these rounds.
 */
export const CLEAN_UP_WAIT = { deadlineSeconds: 45 * 60, firstWaitSeconds: 30, maxWaitSeconds: 120 } as const;
