import type { Logger, ModelHost, ScalingRegistry } from '../ports/index.js';

/**
 * What the async endpoint loop's steps share: "Validate async run" starts the loop's state,
 * "Deploy async endpoint" and "Check async endpoint" run it (their deps, the scale-in deadline a
 * benchmark waits for after the endpoint came into service).
 */

/** How long a benchmark waits for the endpoint to scale in to zero before its burst. */
export const SCALE_IN_DEADLINE_SECONDS = 60 * 60;

/** The scale-in wait a benchmark allows after deploying (AWS scales in after ~15 min of no backlog). */
export function scaleInDeadline(nowMs: number): number {
  return nowMs + SCALE_IN_DEADLINE_SECONDS * 1000;
}

export interface AsyncEndpointTimings {
  readonly pollSeconds: number;
  readonly maxPollSeconds: number;
  readonly nowEpochMs: () => number;
}

export interface PrepareAsyncEndpointDeps extends AsyncEndpointTimings {
  readonly host: ModelHost;
  readonly scaling: ScalingRegistry;
  /** Where results, failures and notifications go (stack resources). */
  readonly output: {
    readonly successTopicArn: string;
    readonly errorTopicArn: string;
    readonly kmsKeyId?: string;
  };
  readonly logger: Logger;
}
