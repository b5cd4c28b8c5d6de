import { createHash } from 'node:crypto';

/**
 * Every resource name derives from the run id (= the execution name), so a retried step asks for
 * the same names (idempotent) and clean-up can find everything by name prefix and by tag.
 *
 * SageMaker names (model, endpoint config, endpoint, compilation job) allow at most 63 characters
 * matching `^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}` (SageMaker API reference, e.g. CreateEndpoint).
 */

export const PROJECT_TAG_VALUE = 'model-serving-optimizer';

/**
 * The project's tag namespace: every key the project sets starts with it, and no user tag may (the
 * run inputs' `tags` schema refuses them, `core/contracts/tags.ts`). Otherwise a user tag
 * `mso:keep` on a run would be copied onto everything the run creates, and the janitor, which
 * trusts these keys, would never delete it.
 */
export const PROJECT_TAG_PREFIX = 'mso:';

/** Every key the project sets; on one endpoint all four at once (a kept candidate's endpoint). */
export const TAG_KEYS = {
  project: 'mso:project',
  runId: 'mso:run-id',
  candidateId: 'mso:candidate-id',
  /** Set (`true`) on what a run keeps (`keep-recommended`): the janitor never sweeps it. */
  keep: 'mso:keep',
} as const;

/** Every SageMaker resource the project creates starts with this, which IAM policies scope on. */
export const RESOURCE_NAME_PREFIX = 'mso-';

const SAGEMAKER_NAME_MAX = 63;
/** Step Functions execution names: 1–80 characters (StartExecution API reference). */
const RUN_ID_PATTERN = /^[A-Za-z0-9_-]{1,80}$/;

export function isValidRunId(runId: string): boolean {
  return RUN_ID_PATTERN.test(runId);
}

/** A stable, name-safe token for a run: readable start plus a hash, so truncation cannot collide. */
export function runToken(runId: string): string {
  const readable = runId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 20)
    .replace(/-+$/, '');
  const hash = createHash('sha256').update(runId).digest('hex').slice(0, 8);
  return readable === '' ? hash : `${readable}-${hash}`;
}

export type ResourceKind =
  'model' | 'endpoint-config' | 'endpoint' | 'compilation' | 'optimization' | 'inference-component';

const KIND_CODE: Record<ResourceKind, string> = {
  model: 'm',
  'endpoint-config': 'ec',
  endpoint: 'ep',
  compilation: 'cj',
  optimization: 'oj',
  // InferenceComponentName: the pattern and 63-character limit of ModelName (SageMaker API model).
  'inference-component': 'ic',
};

/** `mso-<run token>-<kind>-<suffix>`, at most 63 characters, suffix kept whole. */
export function resourceName(runId: string, kind: ResourceKind, suffix: string): string {
  const cleanSuffix = suffix
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const name = `${RESOURCE_NAME_PREFIX}${runToken(runId)}-${KIND_CODE[kind]}-${cleanSuffix}`;
  if (name.length <= SAGEMAKER_NAME_MAX) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 6);
  return `${name.slice(0, SAGEMAKER_NAME_MAX - 7).replace(/-+$/, '')}-${hash}`;
}

/** What marks a kept resource: run clean-up sets it, the janitor honours it. */
export const KEEP_TAG = { key: TAG_KEYS.keep, value: 'true' } as const;

/**
 * Whether `key` is in the project's namespace. Compared without case: tag keys are case-sensitive
 * in SageMaker, so `MSO:keep` would not fool the janitor, but it would fool a person reading tags.
 */
export function isProjectTagKey(key: string): boolean {
  return key.toLowerCase().startsWith(PROJECT_TAG_PREFIX);
}

/** The tags of everything a run creates: the user's (`extra`, checked by `userTagsSchema`) and the project's. */
export function runTags(runId: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...extra, [TAG_KEYS.project]: PROJECT_TAG_VALUE, [TAG_KEYS.runId]: runId };
}

/** SageMaker's default variant name, used for every endpoint the project creates. */
export const VARIANT_NAME = 'AllTraffic';
