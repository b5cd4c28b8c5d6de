/** What the signed-path bench's server and clients share. */

/** Static credentials: the server recomputes signatures with the same secret key. */
export const BENCH_CREDENTIALS = {
  accessKeyId: 'AKIDBENCHSIGNEDPATH0',
  secretAccessKey: 'benchSignedPathSecretKey0000000000000000',
} as const;
export const BENCH_REGION = 'us-east-1';
/** SageMaker Runtime signs as `sagemaker` (the client's auth scheme signing name). */
export const SIGNING_NAME = 'sagemaker';
export const BENCH_ENDPOINT_NAME = 'bench-signed-path';
/** InvokeEndpoint is `POST /endpoints/{EndpointName}/invocations` (restJson1). */
export const INVOKE_PATH = /^\/endpoints\/[^/?]+\/invocations(\?|$)/;
