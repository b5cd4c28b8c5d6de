/**
 * SageMaker Runtime answers an invalid `InvokeEndpointAsync` (unknown endpoint, an endpoint that
 * is not asynchronous, a value out of range) with a `ValidationError`, which the AWS invoker
 * rethrows with that name (lambdas/adapters/sagemaker-async-invoker.ts), except an unknown
 * endpoint, which both invokers turn into `EndpointFailedError`. The local invoker throws the same
 * names, so a workflow's Catch and a log search behave alike in both modes.
 */
export class LocalValidationError extends Error {
  override readonly name = 'ValidationError';
}
