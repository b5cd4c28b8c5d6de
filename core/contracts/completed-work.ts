import { isRecord } from './records.js';
import { withCauseEntry } from './clean-up-account.js';

/**
 * What a failed run completed before it failed, and where it is: the async workflow's recorded
 * results (its clean-up after a failure reads them), the optimization's stored load-test results
 * when "Recommend" failed. It travels as one more key of the run's cause (JSON, beside
 * `errorMessage` and the clean-up's `cleanUp`), so that DescribeExecution, the run summary and
 * the CLIs all say where the work is.
 */

/** The key of a failed run's cause (JSON) that holds what the run completed. */
export const CAUSE_COMPLETED_KEY = 'completed';

export interface CompletedWork {
  /** One readable paragraph: what was completed, how much, and where it is. */
  readonly message: string;
  /** Where the completed work is stored (S3 URIs; the local CLIs show them as files). */
  readonly locations: readonly string[];
}

/** A failed run's cause with what it completed added (a plain-text cause becomes `errorMessage`). */
export function withCompletedWork(
  error: { readonly Error?: string; readonly Cause?: string },
  completed: CompletedWork,
): { readonly Error: string; readonly Cause: string } {
  return withCauseEntry(error, CAUSE_COMPLETED_KEY, completed);
}

/** What a failed run's cause says it completed, if it says. */
export function completedInCause(cause: string | undefined): CompletedWork | undefined {
  if (cause === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(cause);
    const completed = isRecord(parsed) ? parsed[CAUSE_COMPLETED_KEY] : undefined;
    if (!isRecord(completed) || typeof completed.message !== 'string') return undefined;
    const locations = Array.isArray(completed.locations)
      ? completed.locations.filter((location): location is string => typeof location === 'string')
      : [];
    return { message: completed.message, locations };
  } catch {
    return undefined;
  }
}
