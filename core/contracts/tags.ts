import { z } from 'zod';
import { isProjectTagKey, PROJECT_TAG_PREFIX, TAG_KEYS } from './names.js';

/**
 * The tags a user adds to what a run creates (run input `tags`; the approval trigger's template and
 * the schedules pass through the same run input schema). They are copied onto every model,
 * endpoint config, endpoint and compilation job, so one tag SageMaker refuses fails every Create
 * call of the run: they are checked before anything is created, each problem named. The async run
 * input takes no tags: what it deploys carries the project's tags only.
 */

/**
 * SageMaker's limits on tags, from the SageMaker API reference, "Tag"
 * (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_Tag.html) and the `Tags` member
 * of CreateModel, CreateEndpointConfig, CreateEndpoint, CreateCompilationJob and AddTags (shape
 * `TagList` in the SageMaker Smithy model, aws/api-models-aws).
 */
export const SAGEMAKER_TAG_LIMITS = {
  /** `Tag.Key`: 1–128 characters. */
  minKeyLength: 1,
  maxKeyLength: 128,
  /** `Tag.Value`: 0–256 characters. */
  maxValueLength: 256,
  /** `Tag.Key` and `Tag.Value`: `^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$` (letters, separators, numbers and `_.:/=+-@`). */
  pattern: /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u,
  /**
   * `TagList`: 0–50 tags per call; and 50 user-defined tags per resource (Tag Editor user guide,
   * "Service quotas": https://docs.aws.amazon.com/tag-editor/latest/userguide/reference.html).
   * Clean-up adds `mso:keep` later with AddTags, so the limit counts every tag a resource ends with.
   */
  maxTagsPerResource: 50,
  /**
   * Key names can't begin with `aws:`, reserved for AWS (Tag Editor user guide, "Service quotas").
   * Refused in any case, as several services' pages spell out ("aws:, AWS:, or any upper or
   * lowercase combination").
   */
  awsReservedPrefix: 'aws:',
} as const;

/** Every key the project sets; a resource may carry all of them at once (a kept candidate's endpoint). */
const PROJECT_KEYS: readonly string[] = Object.values(TAG_KEYS);

/** The tags a user may add: what a resource takes, less the project's own. */
export const MAX_USER_TAGS = SAGEMAKER_TAG_LIMITS.maxTagsPerResource - PROJECT_KEYS.length;

const ALLOWED_CHARACTERS = 'letters, digits, spaces and _ . : / = + - @ only';

/**
 * Lengths count Unicode scalar values, not UTF-16 units: the limits come from Smithy `length`
 * traits, which count a string that way (Smithy 2.0 specification, "Constraint traits", length).
 */
function characterCount(text: string): number {
  return Array.from(text).length;
}

/** The characters of `text` SageMaker refuses, each once, quoted: `"#", ","`. */
function refusedCharacters(text: string): string {
  const refused = new Set(
    Array.from(text).filter((character) => !SAGEMAKER_TAG_LIMITS.pattern.test(character)),
  );
  return [...refused].map((character) => JSON.stringify(character)).join(', ');
}

/** What is wrong with a tag key, as `expected` texts; none when SageMaker and the project accept it. */
function keyProblems(key: string): string[] {
  const problems: string[] = [];
  const length = characterCount(key);
  if (length < SAGEMAKER_TAG_LIMITS.minKeyLength || length > SAGEMAKER_TAG_LIMITS.maxKeyLength) {
    problems.push(
      `a key of ${SAGEMAKER_TAG_LIMITS.minKeyLength} to ${SAGEMAKER_TAG_LIMITS.maxKeyLength} characters (got ${length})`,
    );
  }
  if (!SAGEMAKER_TAG_LIMITS.pattern.test(key)) {
    problems.push(`a key of ${ALLOWED_CHARACTERS} (SageMaker refuses ${refusedCharacters(key)})`);
  }
  if (key.toLowerCase().startsWith(SAGEMAKER_TAG_LIMITS.awsReservedPrefix)) {
    problems.push(`a key not starting with "${SAGEMAKER_TAG_LIMITS.awsReservedPrefix}" (reserved for AWS)`);
  }
  if (PROJECT_KEYS.includes(key)) {
    problems.push(
      `a key of your own: the project sets "${key}" itself (keys starting with "${PROJECT_TAG_PREFIX}" are the project's)`,
    );
  } else if (isProjectTagKey(key)) {
    problems.push(`a key not starting with "${PROJECT_TAG_PREFIX}" (reserved for the project's own tags)`);
  }
  return problems;
}

/** What is wrong with a tag value, as `expected` texts. */
function valueProblems(value: string): string[] {
  const problems: string[] = [];
  const length = characterCount(value);
  if (length > SAGEMAKER_TAG_LIMITS.maxValueLength) {
    problems.push(`a value of at most ${SAGEMAKER_TAG_LIMITS.maxValueLength} characters (got ${length})`);
  }
  if (!SAGEMAKER_TAG_LIMITS.pattern.test(value)) {
    problems.push(`a value of ${ALLOWED_CHARACTERS} (SageMaker refuses ${refusedCharacters(value)})`);
  }
  return problems;
}

/**
 * The one schema of user tags (`{ key: value }`), for every input that takes them. Each problem is
 * an issue on `tags["<key>"]` (given: the key, or the value for a value problem), and too many
 * tags one on `tags` (given: how many), all reported at once by the first state. The API's JSON
 * Schema model (draft 4: no `propertyNames`; and API Gateway does not say which regex dialect its
 * patterns use, so no `\p{…}` there) gets only the count and the value length, written in as
 * metadata, which zod copies into the JSON Schema it generates.
 */
export const userTagsSchema = z
  .record(z.string(), z.string().meta({ maxLength: SAGEMAKER_TAG_LIMITS.maxValueLength }))
  .meta({ maxProperties: MAX_USER_TAGS })
  .superRefine((tags, context) => {
    for (const [key, value] of Object.entries(tags)) {
      for (const message of keyProblems(key)) {
        context.addIssue({ code: 'custom', path: [key], message, input: key });
      }
      for (const message of valueProblems(value)) {
        context.addIssue({ code: 'custom', path: [key], message, input: value });
      }
    }
    const count = Object.keys(tags).length;
    if (count > MAX_USER_TAGS) {
      context.addIssue({
        code: 'custom',
        path: [],
        input: count,
        message:
          `at most ${MAX_USER_TAGS} tags: a SageMaker resource takes ${SAGEMAKER_TAG_LIMITS.maxTagsPerResource}, ` +
          `and the project sets up to ${PROJECT_KEYS.length} itself (${PROJECT_KEYS.join(', ')})`,
      });
    }
  });
