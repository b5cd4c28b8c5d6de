/**
 * The examples' stand-in for the stack's artifacts bucket (examples/*.json name
 * `s3://your-artifacts-bucket/…`). Scheduled and API inputs (infra/constructs/run-schedules.ts) and
 * `npm run -s runs -- init` (client/init-command.ts) replace it with the deployed bucket.
 */
export const ARTIFACTS_BUCKET_PLACEHOLDER = 'your-artifacts-bucket';

/**
 * The input with every `s3://your-artifacts-bucket/` replaced by `bucketName`, which may be a
 * deploy-time token: the scheduler target's input is rendered with the stack's JSON token
 * resolution, so the deployed schedule starts its runs with the real name.
 */
export function withArtifactsBucket(input: unknown, bucketName: string): unknown {
  const prefix = `s3://${ARTIFACTS_BUCKET_PLACEHOLDER}/`;
  if (typeof input === 'string') {
    return input.startsWith(prefix) ? `s3://${bucketName}/${input.slice(prefix.length)}` : input;
  }
  if (Array.isArray(input)) return input.map((item) => withArtifactsBucket(item, bucketName));
  if (typeof input === 'object' && input !== null) {
    return Object.fromEntries(
      Object.entries(input).map(([key, value]) => [key, withArtifactsBucket(value, bucketName)]),
    );
  }
  return input;
}
