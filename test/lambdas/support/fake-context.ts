import type { Context } from 'aws-lambda';

/** A Lambda context as the runtime passes it, with a fixed remaining time. */
export function fakeContext(remainingMs = 60_000): Context {
  // The deprecated callback members (done, fail, succeed) are left out: nothing calls them.
  const context: Omit<Context, 'done' | 'fail' | 'succeed'> = {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'mso-test-step',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:mso-test-step',
    memoryLimitInMB: '512',
    awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
    logGroupName: '/aws/lambda/mso-test-step',
    logStreamName: '2026/11/22/[$LATEST]abcdef',
    getRemainingTimeInMillis: () => remainingMs,
  };
  return context as Context;
}

/**
 * Variables every entry test sets before importing an entry: what the stack sets, with Powertools
 * kept quiet (no log lines, no EMF output) so test output stays readable.
 */
export function setStepEnvironment(extra: Record<string, string> = {}): void {
  Object.assign(process.env, {
    ARTIFACTS_BUCKET: 'mso-artifacts',
    SAGEMAKER_EXECUTION_ROLE_ARN: 'arn:aws:iam::123456789012:role/mso-sagemaker-execution',
    AWS_REGION: 'us-east-1',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_SERVICE_NAME: 'model-serving-optimizer',
    POWERTOOLS_METRICS_NAMESPACE: 'ModelServingOptimizer',
    ...extra,
  });
}
