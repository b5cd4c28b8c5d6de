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
 * - `runs/<runId>/…`  everything a run produces;
 * - `model-packages/<group>/…`  the index of a Model Registry group's last approved run
 *   (core/report/registry-baseline.ts), read and written by "Recommend" alone;
 * - `catalog/prices/<region>/<day>.json`  a day's hosting prices read from the Price List API
 *   (core/planning/price-source.ts), read and written by "Validate and plan" alone.
 */
export const ArtifactPrefix = {
  models: 'models/',
  inputs: 'inputs/',
  runs: 'runs/',
  modelPackages: 'model-packages/',
  prices: 'catalog/prices/',
} as const;
export type ArtifactPrefix = (typeof ArtifactPrefix)[keyof typeof ArtifactPrefix];

/**
 * The prefixes of the artifacts bucket whose objects a run's input may name, per workflow. The
 * grants of the roles that read those objects (infra/constructs/optimization-steps.ts and
 * async-inference.ts for the Lambdas, sagemaker-execution-role.ts for SageMaker, which reads both
 * workflows' objects) and the first states' URI checks (`artifactPrefixIssues`) all derive from these
 * lists, so an input accepted at validation is one the run's roles can read. Payloads and prompt
 * sets of an optimization run live beside their model, under `models/`.
 */
export const RUN_INPUT_PREFIXES = {
  optimization: [ArtifactPrefix.models, ArtifactPrefix.runs],
  async: [ArtifactPrefix.models, ArtifactPrefix.inputs, ArtifactPrefix.runs],
} as const satisfies Readonly<Record<string, readonly ArtifactPrefix[]>>;

/** What SageMaker's execution role reads: every workflow's input prefixes. */
export const SAGEMAKER_READ_PREFIXES: readonly ArtifactPrefix[] = Object.values(ArtifactPrefix).filter(
  (prefix) => Object.values(RUN_INPUT_PREFIXES).some((prefixes) => prefixes.some((read) => read === prefix)),
);

/**
 * Why a URI in the artifacts bucket is outside `prefixes` (the readable ones), or `undefined` when
 * it is under one of them, or in another bucket (whose access its owner grants, not the stack).
 */
export function artifactPrefixProblem(
  uri: string,
  artifactsBucket: string,
  prefixes: readonly ArtifactPrefix[],
): string | undefined {
  const root = `s3://${artifactsBucket}/`;
  if (!uri.startsWith(root)) return undefined;
  const key = uri.slice(root.length);
  return prefixes.some((prefix) => key.startsWith(prefix))
    ? undefined
    : `a key outside ${prefixes.join(', ')} of the artifacts bucket`;
}

/**
 * Why a URI's key is not one this project reads, or `undefined` when it is. S3 keys are names, not
 * paths: S3 stores `inputs/../x.json`, `inputs/./x.json` and `inputs//x.json` as written, while file
 * systems, URL libraries and some clients resolve them as paths, so the object read could be
 * another one (locally, the file store would resolve them). Control characters (ASCII 0–31 and
 * 127) "might require special handling" and backslashes are among the characters to avoid (S3 user
 * guide, "Naming Amazon S3 objects",
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html). `file:///` paths follow
 * the same rules. A prefix URI (`kind: 'prefix'`) may end with `/` and may be the bucket root.
 */
export function objectKeyProblem(uri: string, kind: 'object' | 'prefix' = 'object'): string | undefined {
  const key = keyOf(uri);
  if (key === undefined) return undefined;
  const control = CONTROL_CHARACTER.exec(key);
  if (control !== null) {
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    return `a control character (U+${code})`;
  }
  if (key.includes('\\')) return 'a backslash';
  const segments = key.split('/');
  if (kind === 'prefix' && segments.at(-1) === '') segments.pop();
  if (segments.includes('..')) return 'a ".." segment';
  if (segments.includes('.')) return 'a "." segment';
  if (segments.includes('')) return 'an empty segment ("//", or "/" at the start or end of the key)';
  return undefined;
}

/** What the key rules of `objectKeyProblem` expect, for an input issue. */
export const OBJECT_KEY_EXPECTED =
  'a key without "." or ".." segments, empty segments ("//"), backslashes or control characters ' +
  '(S3 keeps such a key as written while file systems and some clients resolve it as a path, so another ' +
  'object could be read)';

/**
 * The URI with its key resolved as a path (`.` and empty segments dropped, `..` removing the
 * segment before it, backslashes read as `/`, control characters dropped): the object the user
 * most likely meant. `undefined` when nothing is left of the key.
 */
export function normalisedObjectUri(uri: string): string | undefined {
  const key = keyOf(uri);
  if (key === undefined) return undefined;
  const segments: string[] = [];
  for (const segment of key.replace(CONTROL_CHARACTERS, '').replace(/\\/g, '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  if (segments.length === 0) return undefined;
  const root = uri.slice(0, uri.length - key.length);
  return `${root}${segments.join('/')}${uri.endsWith('/') ? '/' : ''}`;
}

/** The key part of an `s3://bucket/key` or `file:///path` URI (the path without its leading `/`). */
function keyOf(uri: string): string | undefined {
  const match = /^(?:s3:\/\/[^/]+\/|file:\/\/\/)(.*)$/s.exec(uri);
  return match?.[1];
}

// eslint-disable-next-line no-control-regex -- control characters are what these look for
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex -- control characters are what these look for
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;
