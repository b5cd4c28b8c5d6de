import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { type InputIssue, InvalidRunInputError } from '../../../core/contracts/errors.js';
import { PROJECT_TAG_PREFIX, TAG_KEYS } from '../../../core/contracts/names.js';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { MAX_USER_TAGS, SAGEMAKER_TAG_LIMITS, userTagsSchema } from '../../../core/contracts/tags.js';
import { formatFieldPath, parseOrThrow } from '../../../core/contracts/validation.js';

/** A minimal valid optimization run input; each test adds its tags. */
const RUN_INPUT = {
  model: { artifactUri: 's3://mso-artifacts/models/cnn/model.onnx', framework: 'onnx' },
  payload: { uri: 's3://mso-artifacts/models/cnn/payload.json' },
  candidates: [{ instanceType: 'ml.c5.xlarge' }],
  loadPlan: { steps: [1, 4] },
  sla: { p95LatencyMs: 100 },
};

/** The issues the run input schema reports for `tags`, or none. */
function tagIssues(tags: Record<string, string>): readonly InputIssue[] {
  try {
    parseOrThrow(runInputSchema, { ...RUN_INPUT, tags });
    return [];
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error.issues;
    throw error;
  }
}

/** `count` distinct, valid user tags. */
function manyTags(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, index) => [`team-${index}`, 'ml']));
}

const CHARACTERS = 'letters, digits, spaces and _ . : / = + - @ only';

describe('userTagsSchema (run input `tags`)', () => {
  it('accepts unicode letters, spaces and the allowed symbols in keys and values', () => {
    // Prepare
    const tags = { café: 'ü', 'cost center': 'a_b.c:d/e=f+g-h@i', 数据: '' };

    // Act
    const parsed = parseOrThrow(runInputSchema, { ...RUN_INPUT, tags });

    // Assert
    expect(parsed.tags).toEqual(tags);
  });

  it(`accepts ${MAX_USER_TAGS} tags, the most that leave room for the project's own`, () => {
    // Act
    const issues = tagIssues(manyTags(MAX_USER_TAGS));

    // Assert
    expect(issues).toEqual([]);
  });

  it.each<[string, Record<string, string>, InputIssue]>([
    [
      'a key with "#"',
      { 'a#b': 'x' },
      { field: 'tags["a#b"]', given: '"a#b"', expected: `a key of ${CHARACTERS} (SageMaker refuses "#")` },
    ],
    [
      'a value with ","',
      { team: 'ml,search' },
      {
        field: 'tags.team',
        given: '"ml,search"',
        expected: `a value of ${CHARACTERS} (SageMaker refuses ",")`,
      },
    ],
    [
      'a value with "("',
      { owner: 'ana (ml)' },
      {
        field: 'tags.owner',
        given: '"ana (ml)"',
        expected: `a value of ${CHARACTERS} (SageMaker refuses "(", ")")`,
      },
    ],
    [
      'a key starting with "aws:"',
      { 'aws:cost-center': 'x' },
      {
        field: 'tags["aws:cost-center"]',
        given: '"aws:cost-center"',
        expected: 'a key not starting with "aws:" (reserved for AWS)',
      },
    ],
    [
      'a key starting with "AWS:" (any case)',
      { 'AWS:team': 'x' },
      {
        field: 'tags["AWS:team"]',
        given: '"AWS:team"',
        expected: 'a key not starting with "aws:" (reserved for AWS)',
      },
    ],
    [
      "a key in the project's reserved namespace",
      { 'mso:owner': 'ana' },
      {
        field: 'tags["mso:owner"]',
        given: '"mso:owner"',
        expected: 'a key not starting with "mso:" (reserved for the project\'s own tags)',
      },
    ],
    [
      'the reserved namespace in another case',
      { 'MSO:keep': 'true' },
      {
        field: 'tags["MSO:keep"]',
        given: '"MSO:keep"',
        expected: 'a key not starting with "mso:" (reserved for the project\'s own tags)',
      },
    ],
    [
      'mso:keep, which would stop the janitor from ever deleting what the run creates',
      { 'mso:keep': 'true' },
      {
        field: 'tags["mso:keep"]',
        given: '"mso:keep"',
        expected:
          'a key of your own: the project sets "mso:keep" itself (keys starting with "mso:" are the project\'s)',
      },
    ],
    [
      "the project's own key mso:project",
      { 'mso:project': 'model-serving-optimizer' },
      {
        field: 'tags["mso:project"]',
        given: '"mso:project"',
        expected:
          'a key of your own: the project sets "mso:project" itself (keys starting with "mso:" are the project\'s)',
      },
    ],
    [
      'a key longer than 128 characters',
      { ['k'.repeat(129)]: 'x' },
      {
        field: `tags["${'k'.repeat(39)}…"]`,
        given: `"${'k'.repeat(78)}… (129 characters)`,
        expected: 'a key of 1 to 128 characters (got 129)',
      },
    ],
    [
      'an empty key',
      { '': 'x' },
      { field: 'tags[""]', given: '""', expected: 'a key of 1 to 128 characters (got 0)' },
    ],
    [
      'a value longer than 256 characters',
      { team: 'v'.repeat(257) },
      {
        field: 'tags.team',
        given: `"${'v'.repeat(78)}… (257 characters)`,
        expected: 'a value of at most 256 characters (got 257)',
      },
    ],
    [
      `${MAX_USER_TAGS + 1} tags, which with the project's own exceed 50 on a resource`,
      manyTags(MAX_USER_TAGS + 1),
      {
        field: 'tags',
        given: String(MAX_USER_TAGS + 1),
        expected:
          'at most 46 tags: a SageMaker resource takes 50, and the project sets up to 4 itself ' +
          '(mso:project, mso:run-id, mso:candidate-id, mso:keep)',
      },
    ],
  ])('refuses %s, naming the tag', (_case, tags, issue) => {
    // Act
    const issues = tagIssues(tags);

    // Assert
    expect(issues).toEqual([issue]);
  });

  it('refuses every problem of one input at once', () => {
    // Act
    const issues = tagIssues({ 'aws:a#b': 'x', ok: 'fine', 'mso:keep': 'true' });

    // Assert
    expect(issues.map((issue) => issue.expected)).toEqual([
      `a key of ${CHARACTERS} (SageMaker refuses "#")`,
      'a key not starting with "aws:" (reserved for AWS)',
      'a key of your own: the project sets "mso:keep" itself (keys starting with "mso:" are the project\'s)',
    ]);
  });

  it('counts lengths in characters, not UTF-16 units: 128 supplementary-plane digits make a valid key', () => {
    // Prepare: each "𝟘" (a digit, \p{N}) is two UTF-16 units.
    const key = '𝟘'.repeat(SAGEMAKER_TAG_LIMITS.maxKeyLength);

    // Act
    const result = userTagsSchema.safeParse({ [key]: 'x' });

    // Assert
    expect(result.success).toBe(true);
  });
});

describe('userTagsSchema as JSON Schema (the API model)', () => {
  it('carries the count and the value length, the limits draft 4 can express', () => {
    // Act
    const schema = z.toJSONSchema(userTagsSchema, { target: 'draft-04', io: 'input' });

    // Assert
    expect(schema).toEqual({
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      maxProperties: 46,
      additionalProperties: { type: 'string', maxLength: 256 },
    });
  });
});

describe("the project's tag namespace", () => {
  it.each(Object.values(TAG_KEYS))('holds the key %s the project sets', (key) => {
    // Assert
    expect(key.startsWith(PROJECT_TAG_PREFIX)).toBe(true);
  });
});

describe('formatFieldPath', () => {
  it('quotes a user-chosen name that is not a plain identifier', () => {
    // Act
    const field = formatFieldPath(['pricing', 'usdPerHour', 'ml.c5.xlarge']);

    // Assert
    expect(field).toBe('pricing.usdPerHour["ml.c5.xlarge"]');
  });

  it('keeps plain names dotted and indices bracketed', () => {
    // Act
    const field = formatFieldPath(['candidates', 2, 'instanceType']);

    // Assert
    expect(field).toBe('candidates[2].instanceType');
  });
});
