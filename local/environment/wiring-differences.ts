import type { AsyncInferenceStepName, OptimizationStepName } from '../../core/contracts/index.js';

/** Dependencies one side passes and the other deliberately does not, each with its reason. */
export interface WiringDifference {
  /** Keys the Lambda entry (`lambdas/<step>.ts`) passes to the core and the local handler does not. */
  readonly lambdaOnly?: Readonly<Record<string, string>>;
  /** Keys the local handler (local/environment/step-handlers.ts, local/environment/async-step-handlers.ts) passes and the Lambda does not. */
  readonly localOnly?: Readonly<Record<string, string>>;
}

/**
 * Every place where a step's local wiring deliberately differs from its Lambda's, and why. Any other
 * difference in which dependencies the two pass to a step's core fails
 * test/local/environment/wiring-parity.test.ts, and so does an entry here that no longer matches a difference.
 */
export const LOCAL_WIRING_DIFFERENCES: Readonly<
  Partial<Record<OptimizationStepName | AsyncInferenceStepName, WiringDifference>>
> = {
  'validate-and-plan': {
    lambdaOnly: {
      servingRegion:
        'local mode serves every model with its own model server and compiles with its own compiler: there is no AWS region whose serving images, Neo targets and in-flight quotas the planner could check',
      market:
        'local mode reads no AWS price list or EC2 facts: its plans use the recorded tables, and the plan says their source and age',
      'market.prices': 'the Price List API reader of `market` (AWS only)',
      'market.facts': 'the EC2 DescribeInstanceTypes reader of `market` (AWS only)',
    },
    localOnly: {
      loadSegmentSeconds:
        'local tests shorten the load segments so that a short test runs as several; on AWS one segment fits the load worker Lambda (awsSegmentSeconds)',
    },
  },
  'run-load-worker': {
    lambdaOnly: {
      deadlineEpochMs:
        "a Lambda invocation ends at its timeout, so the worker stops before it; a local worker has no timeout and stops on the runner's abort signal",
    },
    localOnly: {
      signal:
        'the local runner aborts a running worker when its execution stops; Lambda stops the invocation itself',
      onProgress: 'the local CLI shows each worker’s progress; on AWS nobody watches a worker’s console',
    },
  },
  'quality-pass': {
    lambdaOnly: {
      deadlineEpochMs:
        'a Lambda invocation ends at its timeout, so the inputs not asked by then are recorded as unanswered; a local pass has no timeout',
    },
  },
  recommend: {
    localOnly: {
      localFileOf:
        'a local report links the files on disk its objects are; on AWS the report shows their s3:// URIs',
    },
  },
};
