/** `s3://bucket/key` or `file:///path` split into parts; the object store ports work on these. */
export interface ObjectLocation {
  readonly scheme: 's3' | 'file';
  readonly bucket: string;
  readonly key: string;
}

export function parseObjectUri(uri: string): ObjectLocation {
  const s3 = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (s3?.[1] !== undefined && s3[2] !== undefined) return { scheme: 's3', bucket: s3[1], key: s3[2] };
  const file = /^file:\/\/(\/.+)$/.exec(uri);
  if (file?.[1] !== undefined) return { scheme: 'file', bucket: '', key: file[1] };
  throw new TypeError(`Not an object URI: ${JSON.stringify(uri)}; expected s3://bucket/key or file:///path`);
}

export function s3Uri(bucket: string, key: string): string {
  return `s3://${bucket}/${key.replace(/^\/+/, '')}`;
}

/** The run's prefix in the artifacts bucket: everything a run writes lives under it. */
export function runPrefixKey(runId: string): string {
  return `runs/${runId}/`;
}

/**
 * Key layout of the artifacts bucket (infra/constructs/artifacts-store.ts grants by these):
 * - `models/…`  the models to optimize or serve, uploaded before a run;
 * - `inputs/…`  the async workflow's inputs, uploaded before a run;
 * - `runs/<runId>/…`  everything a run produces.
 */
export const ArtifactPrefix = {
  models: 'models/',
  inputs: 'inputs/',
  runs: 'runs/',
} as const;
export type ArtifactPrefix = (typeof ArtifactPrefix)[keyof typeof ArtifactPrefix];
