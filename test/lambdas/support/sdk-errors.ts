import { SageMakerServiceException } from '@aws-sdk/client-sagemaker';

/**
 * SDK v3 service errors as the deserializer builds them: a `name`, a `$fault` and the HTTP status
 * in `$metadata`. SageMaker has no class for ValidationException or ThrottlingException.
 */
export function sageMakerError(
  name: string,
  message: string,
  options: { readonly status?: number; readonly fault?: 'client' | 'server' } = {},
): SageMakerServiceException {
  return new SageMakerServiceException({
    name,
    message,
    $fault: options.fault ?? 'client',
    $metadata: { httpStatusCode: options.status ?? 400 },
  });
}
