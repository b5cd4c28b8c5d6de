import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { type InputIssue, InvalidRunInputError } from '../../../core/contracts/errors.js';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { describeGiven, parseOrThrow } from '../../../core/contracts/validation.js';
import type { ObjectListing, ObjectMetadata, ObjectStore } from '../../../core/ports/index.js';
import { validateAndPlan } from '../../../core/steps/optimization/validate-and-plan.js';
import { silentLogger } from '../../support/memory-object-store.js';

const MODEL_URI = 's3://mso-artifacts/models/cnn/model.onnx';
const PAYLOAD_URI = 's3://mso-artifacts/models/cnn/payload.json';

/** A valid run input as JSON text, so that a test can write what JSON.parse alone produces. */
function runInputJson(overrides: Record<string, string> = {}): string {
  const fields: Record<string, string> = {
    model: `{"artifactUri":"${MODEL_URI}","framework":"onnx"}`,
    payload: `{"uri":"${PAYLOAD_URI}"}`,
    candidates: '[{"instanceType":"ml.c5.xlarge"}]',
    loadPlan: '{"steps":[1,4]}',
    sla: '{"p95LatencyMs":100}',
    ...overrides,
  };
  return `{${Object.entries(fields)
    .map(([name, json]) => `"${name}":${json}`)
    .join(',')}}`;
}

/** The issues the run input schema reports for a JSON document, or none. */
function issuesOf(json: string): readonly InputIssue[] {
  try {
    parseOrThrow(runInputSchema, JSON.parse(json));
    return [];
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error.issues;
    throw error;
  }
}

/** An object store that records every call and has nothing in it. */
class RecordingStore implements ObjectStore {
  readonly calls: string[] = [];

  head(uri: string): Promise<ObjectMetadata | undefined> {
    this.calls.push(`head ${uri}`);
    return Promise.resolve(undefined);
  }

  getBytes(uri: string): Promise<Uint8Array> {
    this.calls.push(`getBytes ${uri}`);
    return Promise.resolve(new Uint8Array());
  }

  getFirstBytes(uri: string): Promise<Uint8Array> {
    this.calls.push(`getFirstBytes ${uri}`);
    return Promise.resolve(new Uint8Array());
  }

  putBytes(uri: string): Promise<void> {
    this.calls.push(`putBytes ${uri}`);
    return Promise.resolve();
  }

  list(prefixUri: string): Promise<ObjectListing> {
    this.calls.push(`list ${prefixUri}`);
    return Promise.resolve({ uris: [], truncated: false });
  }
}

const KEY_PATTERN = "SageMaker's EnvironmentKey pattern ^[a-zA-Z_][a-zA-Z0-9_]*$";
const SPECIAL_KEY =
  'a key other than "__proto__", "constructor" and "prototype" (JavaScript objects treat these ' +
  'names specially, so the run could not keep what you wrote): rename it';
const SEGMENTED = "steps longer than a load worker's invocation run as consecutive segments";

type Row = [string, Record<string, string>, readonly InputIssue[]];

describe('run input errors: a union reports the rule of the branch the candidate meant', () => {
  it.each<Row>([
    [
      'a space in an environment variable name',
      { candidates: '[{"instanceType":"ml.c5.xlarge","environment":{"MY VAR":"1"}}]' },
      [
        {
          field: 'candidates[0].environment["MY VAR"]',
          given: '"MY VAR"',
          expected: `a name of ASCII letters, digits and "_" only (${KEY_PATTERN}): " " at character 3 is refused`,
        },
      ],
    ],
    [
      'a non-ASCII letter in an environment variable name',
      { candidates: '[{"serverless":{"memorySizeMb":2048},"environment":{"CAFÉ":"1"}}]' },
      [
        {
          field: 'candidates[0].environment["CAFÉ"]',
          given: '"CAFÉ"',
          expected: `a name of ASCII letters, digits and "_" only (${KEY_PATTERN}): "É" at character 4 is refused`,
        },
      ],
    ],
    [
      'an environment variable name starting with a digit',
      { candidates: '[{"instanceType":"ml.c5.xlarge","environment":{"1X":"1"}}]' },
      [
        {
          field: 'candidates[0].environment["1X"]',
          given: '"1X"',
          expected: `a name starting with an ASCII letter or "_" (${KEY_PATTERN}): "1" at character 1 is refused`,
        },
      ],
    ],
    ...[1000, 512, 7168].map<Row>((memory) => [
      `a serverless memory of ${memory} MB`,
      { candidates: `[{"serverless":{"memorySizeMb":${memory}}}]` },
      [
        {
          field: 'candidates[0].serverless.memorySizeMb',
          given: String(memory),
          expected:
            "one of 1024, 2048, 3072, 4096, 5120, 6144 MB (SageMaker's ServerlessConfig.MemorySizeInMB: 1 GB steps from 1024 to 6144 MB)",
        },
      ],
    ]),
    [
      'a misspelt field in a real-time candidate',
      { candidates: '[{"instanceType":"ml.c5.xlarge","enviroment":{}}]' },
      [
        {
          field: 'candidates[0]',
          given: 'unknown field(s) "enviroment"',
          expected: 'only the documented fields (check the spelling)',
        },
      ],
    ],
    [
      'a misspelt field in the load plan, which would otherwise run with its default',
      { loadPlan: '{"steps":[1,4],"stepDurationSecond":60}' },
      [
        {
          field: 'loadPlan',
          given: 'unknown field(s) "stepDurationSecond"',
          expected: 'only the documented fields (check the spelling)',
        },
      ],
    ],
    [
      'a misspelt field in the SLA',
      { sla: '{"p95LatencyMs":100,"maxErrorRatio":0.05}' },
      [
        {
          field: 'sla',
          given: 'unknown field(s) "maxErrorRatio"',
          expected: 'only the documented fields (check the spelling)',
        },
      ],
    ],
  ])('refuses %s, naming the rule', (_case, overrides, expected) => {
    // Act
    const issues = issuesOf(runInputJson(overrides));

    // Assert
    expect(issues).toEqual(expected);
  });

  it.each<[string, string, string]>([
    ['both discriminating fields', '{"instanceType":"ml.c5.xlarge","serverless":{"memorySizeMb":1024}}', ''],
    ['neither discriminating field', '{"id":"a"}', ''],
    ['a number', '5', ''],
  ])('refuses a candidate with %s, asking for exactly one', (_case, candidate) => {
    // Act
    const issues = issuesOf(runInputJson({ candidates: `[${candidate}]` }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0]',
        given: JSON.stringify(JSON.parse(candidate)),
        expected:
          'a candidate object with exactly one of `instanceType` (a real-time endpoint) and `serverless` (a serverless endpoint)',
      },
    ]);
  });
});

describe('run input errors: what was given is reported as written', () => {
  it.each<Row>([
    [
      'a step of 1e400',
      { loadPlan: '{"steps":[1e400]}' },
      [
        {
          field: 'loadPlan.steps[0]',
          given: 'Infinity (a number too large for JSON, such as 1e400)',
          expected: 'a finite number',
        },
      ],
    ],
    [
      'a latency bound of -1e400',
      { sla: '{"p95LatencyMs":-1e400}' },
      [
        {
          field: 'sla.p95LatencyMs',
          given: '-Infinity (a number too large for JSON, such as 1e400)',
          expected: 'a finite number',
        },
      ],
    ],
    [
      'a price of 1e400 among other numbers',
      { pricing: '{"usdPerHour":{"ml.c5.xlarge":1e400}}' },
      [
        {
          field: 'pricing.usdPerHour["ml.c5.xlarge"]',
          given: 'Infinity (a number too large for JSON, such as 1e400)',
          expected: 'a finite number',
        },
      ],
    ],
    [
      'an invalid character at the end of a long name',
      {
        model: `{"artifactUri":"${MODEL_URI}","framework":"onnx","environment":{"${'A'.repeat(100)}-B":"1"}}`,
      },
      [
        {
          field: `model.environment["${'A'.repeat(39)}…"]`,
          given: `…${'A'.repeat(77)}-B" (102 characters)`,
          expected: `a name of ASCII letters, digits and "_" only (${KEY_PATTERN}): "-" at character 101 is refused`,
        },
      ],
    ],
    [
      'an invalid character in the middle of a long name',
      {
        model: `{"artifactUri":"${MODEL_URI}","framework":"onnx","environment":{"${'A'.repeat(100)}.${'B'.repeat(100)}":"1"}}`,
      },
      [
        {
          field: `model.environment["${'A'.repeat(39)}…"]`,
          given: `…${'A'.repeat(24)}.${'B'.repeat(55)}… (201 characters)`,
          expected: `a name of ASCII letters, digits and "_" only (${KEY_PATTERN}): "." at character 101 is refused`,
        },
      ],
    ],
  ])('reports %s', (_case, overrides, expected) => {
    // Act
    const issues = issuesOf(runInputJson(overrides));

    // Assert
    expect(issues).toEqual(expected);
  });

  it('shows a non-finite number inside a value as the number, not as null', () => {
    expect(describeGiven({ steps: [1, Number.POSITIVE_INFINITY] })).toBe('{"steps":[1,Infinity]}');
  });
});

describe('run input errors: keys JavaScript treats specially are refused, not dropped', () => {
  it.each<Row>([
    [
      '__proto__ in model.environment',
      { model: `{"artifactUri":"${MODEL_URI}","framework":"onnx","environment":{"__proto__":"x","A":"1"}}` },
      [{ field: 'model.environment["__proto__"]', given: '"__proto__"', expected: SPECIAL_KEY }],
    ],
    [
      '__proto__ in a candidate environment',
      { candidates: '[{"instanceType":"ml.c5.xlarge","environment":{"__proto__":"x"}}]' },
      [{ field: 'candidates[0].environment["__proto__"]', given: '"__proto__"', expected: SPECIAL_KEY }],
    ],
    [
      '__proto__ in environmentRanges',
      { environmentRanges: '{"__proto__":["1","2"]}' },
      [{ field: 'environmentRanges["__proto__"]', given: '"__proto__"', expected: SPECIAL_KEY }],
    ],
    [
      '__proto__ in tags',
      { tags: '{"__proto__":"x"}' },
      [{ field: 'tags["__proto__"]', given: '"__proto__"', expected: SPECIAL_KEY }],
    ],
    [
      'constructor in pricing.usdPerHour',
      { pricing: '{"usdPerHour":{"constructor":1}}' },
      [{ field: 'pricing.usdPerHour["constructor"]', given: '"constructor"', expected: SPECIAL_KEY }],
    ],
    [
      'prototype in a candidate environment',
      { candidates: '[{"instanceType":"ml.c5.xlarge","environment":{"prototype":"x"}}]' },
      [{ field: 'candidates[0].environment["prototype"]', given: '"prototype"', expected: SPECIAL_KEY }],
    ],
    [
      '__proto__ as a field of the run input, once',
      // A computed key: a literal `__proto__:` would set the prototype, not a field.
      { ['__proto__']: '{}' },
      [{ field: '["__proto__"]', given: '"__proto__"', expected: SPECIAL_KEY }],
    ],
  ])('refuses %s', (_case, overrides, expected) => {
    // Act
    const issues = issuesOf(runInputJson(overrides));

    // Assert
    expect(issues).toEqual(expected);
  });
});

describe("run input errors: SageMaker's limits on a container's environment", () => {
  const manyVariables = (count: number, valueLength: number, prefix = 'V'): string =>
    `{${Array.from({ length: count }, (_, index) => `"${prefix}${index}":"${'x'.repeat(valueLength)}"`).join(',')}}`;

  it.each<Row>([
    [
      '101 variables',
      { candidates: `[{"instanceType":"ml.c5.xlarge","environment":${manyVariables(101, 1)}}]` },
      [
        {
          field: 'candidates[0].environment',
          given: '101',
          expected: "at most 100 variables (SageMaker's limit on a container's Environment)",
        },
      ],
    ],
    [
      'a value of 1026 bytes in 513 characters',
      { candidates: `[{"instanceType":"ml.c5.xlarge","environment":{"A":"${'é'.repeat(513)}"}}]` },
      [
        {
          field: 'candidates[0].environment.A',
          given: `"${'é'.repeat(78)}… (513 characters)`,
          expected:
            "a value of at most 1024 bytes in UTF-8 (SageMaker's limit on an Environment value; this one has 1026)",
        },
      ],
    ],
    [
      '40 variables of 1000 bytes (over 32 KB in all)',
      { candidates: `[{"instanceType":"ml.c5.xlarge","environment":${manyVariables(40, 1000)}}]` },
      [
        {
          field: 'candidates[0].environment',
          given: '40110',
          expected:
            "at most 32768 bytes of names and values (SageMaker's 32 KB limit on a container's Environment)",
        },
      ],
    ],
    [
      '60 model variables and 60 of the candidate, merged into one container',
      {
        model: `{"artifactUri":"${MODEL_URI}","framework":"onnx","environment":${manyVariables(60, 1, 'M')}}`,
        candidates: `[{"instanceType":"ml.c5.xlarge","environment":${manyVariables(60, 1, 'C')}}]`,
      },
      [
        {
          field: 'candidates[0].environment',
          given: '120',
          expected:
            "at most 100 variables once model.environment, this environment and environmentRanges are merged (SageMaker's limit on a container's Environment)",
        },
      ],
    ],
  ])('refuses %s', (_case, overrides, expected) => {
    // Act
    const issues = issuesOf(runInputJson(overrides));

    // Assert
    expect(issues).toEqual(expected);
  });

  it('accepts 100 variables, the most SageMaker takes', () => {
    // Act
    const issues = issuesOf(
      runInputJson({
        candidates: `[{"instanceType":"ml.c5.xlarge","environment":${manyVariables(100, 1)}}]`,
      }),
    );

    // Assert
    expect(issues).toEqual([]);
  });
});

describe('run input errors: durations a load test cannot run', () => {
  it.each<Row>([
    [
      'a step of 1e-300 s',
      { loadPlan: '{"steps":[1],"stepDurationSeconds":1e-300}' },
      [
        {
          field: 'loadPlan.stepDurationSeconds',
          given: '1e-300',
          expected: 'at least 0.1 s: a shorter window measures no request',
        },
      ],
    ],
    [
      'a step longer than a day',
      { loadPlan: '{"steps":[1],"stepDurationSeconds":86401}' },
      [
        {
          field: 'loadPlan.stepDurationSeconds',
          given: '86401',
          expected: `at most 86400 s (a day, the run's own timeout); ${SEGMENTED}`,
        },
      ],
    ],
    [
      'a run shorter than its first step',
      { loadPlan: '{"steps":[1],"maxTotalSeconds":10}' },
      [
        {
          field: 'loadPlan.maxTotalSeconds',
          given: '10',
          expected:
            'at least warmupSeconds + stepDurationSeconds (35 s): a run shorter than one step measures nothing',
        },
      ],
    ],
  ])('refuses %s', (_case, overrides, expected) => {
    // Act
    const issues = issuesOf(runInputJson(overrides));

    // Assert
    expect(issues).toEqual(expected);
  });
});

describe('the first state refuses each class before anything is touched', () => {
  it.each<[string, Record<string, string>]>([
    ['a union rule', { candidates: '[{"serverless":{"memorySizeMb":1000}}]' }],
    ['a non-finite number', { loadPlan: '{"steps":[1e400]}' }],
    ['a __proto__ key', { tags: '{"__proto__":"x"}' }],
    [
      'an environment over its limit',
      { candidates: '[{"instanceType":"ml.c5.xlarge","environment":{"A":"' + 'x'.repeat(1025) + '"}}]' },
    ],
    ['a step longer than a day', { loadPlan: '{"steps":[1],"stepDurationSeconds":86401}' }],
  ])('refuses %s without a call to the store', async (_case, overrides) => {
    // Prepare
    const store = new RecordingStore();

    // Act
    const error = await validateAndPlan(
      { runId: 'run-1', input: JSON.parse(runInputJson(overrides)) },
      { store, artifactsBucket: 'mso-artifacts', allowFileUris: false, logger: silentLogger },
    ).catch((caught: unknown) => caught);

    // Assert
    expect(error).toBeInstanceOf(InvalidRunInputError);
    expect(store.calls).toEqual([]);
  });
});

describe('run input errors: bounds are said in words', () => {
  it.each([
    [z.object({ rate: z.number().positive() }), { rate: 0 }, 'a number above 0'],
    [z.object({ rate: z.number().min(60) }), { rate: 59 }, 'a number of at least 60'],
    [z.object({ rate: z.number().max(10) }), { rate: 11 }, 'a number of at most 10'],
    [z.object({ rate: z.number().lt(5) }), { rate: 5 }, 'a number below 5'],
    [z.object({ rate: z.string().min(1) }), { rate: '' }, 'at least 1 character'],
    [z.object({ rate: z.array(z.number()).max(2) }), { rate: [1, 2, 3] }, 'at most 2 items'],
  ])('says %#: %j → %s', (schema, input, expected) => {
    // Act
    const error = (() => {
      try {
        parseOrThrow(schema, input);
        return undefined;
      } catch (caught) {
        return caught;
      }
    })();

    // Assert
    expect(error).toBeInstanceOf(InvalidRunInputError);
    expect((error as InvalidRunInputError).issues.map((issue) => issue.expected)).toEqual([expected]);
  });
});
