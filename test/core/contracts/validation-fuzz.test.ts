import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';

/**
 * Fuzz-style properties of the run input's validation: inputs near the valid ones (each field valid,
 * at a limit, just past it, of the wrong type, or a special key) and arbitrary JSON. Kept to 200 runs.
 */

const NUM_RUNS = 200;

/** Objects built from entries, so `__proto__` becomes an own key as JSON.parse makes it. */
const objectOf = <Value>(key: fc.Arbitrary<string>, value: fc.Arbitrary<Value>, maxLength = 4) =>
  fc.array(fc.tuple(key, value), { maxLength }).map((entries) => Object.fromEntries(entries));

const specialKey = fc.constantFrom('__proto__', 'constructor', 'prototype');

const number = fc.oneof(
  fc.integer({ min: -5, max: 20_000 }),
  fc.double(),
  fc.constantFrom(
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    Number.NaN,
    1e-300,
    0.1,
    840,
    841,
    1024,
    6144,
  ),
);

const environmentKey = fc.oneof(
  fc.constantFrom('A', 'MY_VAR', '_X1', 'A B', 'CAFÉ', '1X', '', 'X'.repeat(1025)),
  specialKey,
  fc.string({ maxLength: 12 }),
);
const environmentValue = fc.oneof(fc.string({ maxLength: 8 }), fc.constant('é'.repeat(513)));
const environment = objectOf(environmentKey, environmentValue);

const instanceType = fc.oneof(
  fc.constantFrom('ml.c5.xlarge', 'ml.g4dn.xlarge', 'ml.x9.huge', 'c5.xlarge'),
  fc.string({ maxLength: 12 }),
);

const realtimeCandidate = fc.record(
  {
    instanceType,
    initialInstanceCount: number,
    compiledFor: fc.constantFrom('ml_c5', 'ml_g4dn', 'ml_g5'),
    environment,
    id: fc.constantFrom('a', 'b', 'Bad Id'),
  },
  { requiredKeys: ['instanceType'] },
);

const serverlessCandidate = fc.record(
  {
    serverless: fc.record(
      { memorySizeMb: number, maxConcurrency: number },
      { requiredKeys: ['memorySizeMb'] },
    ),
    environment,
  },
  { requiredKeys: ['serverless'] },
);

const candidate = fc.oneof(
  realtimeCandidate,
  serverlessCandidate,
  fc.tuple(realtimeCandidate, serverlessCandidate).map(([a, b]) => ({ ...a, ...b })),
  fc.jsonValue({ maxDepth: 2 }),
);

const loadPlan = fc.record(
  {
    model: fc.constantFrom('closed', 'open', 'other'),
    steps: fc.array(number, { maxLength: 3 }),
    warmupSeconds: number,
    stepDurationSeconds: number,
    maxTotalSeconds: number,
    workers: number,
  },
  { requiredKeys: ['steps'] },
);

const runInput = fc.record(
  {
    model: fc.record(
      {
        artifactUri: fc.constantFrom('s3://mso-artifacts/models/m.onnx', 'http://x', ''),
        framework: fc.constantFrom('onnx', 'pytorch', 'caffe'),
        environment,
      },
      { requiredKeys: ['artifactUri', 'framework'] },
    ),
    payload: fc.record({ uri: fc.constantFrom('s3://mso-artifacts/p.json', 'p.json') }),
    candidates: fc.array(candidate, { maxLength: 3 }),
    environmentRanges: objectOf(environmentKey, fc.array(environmentValue, { maxLength: 3 }), 2),
    loadPlan,
    sla: fc.record({ p95LatencyMs: number, maxErrorRate: number }, { requiredKeys: [] }),
    pricing: fc.record({ usdPerHour: objectOf(fc.oneof(instanceType, specialKey), number, 2) }),
    tags: objectOf(fc.oneof(fc.string({ maxLength: 6 }), specialKey), fc.string({ maxLength: 6 }), 3),
    unknownField: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: ['payload', 'loadPlan', 'sla'] },
);

/**
 * Inputs built from valid values only, with now and then a special key in a map: what a user who
 * read the documentation writes. Most parse; the property below checks that none loses a key.
 */
const validName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
const nameOrSpecial = fc.oneof({ arbitrary: validName, weight: 19 }, { arbitrary: specialKey, weight: 1 });
const validEnvironment = objectOf(nameOrSpecial, fc.string({ maxLength: 8 }), 3);

const validCandidate = fc.oneof(
  fc.record(
    {
      instanceType: fc.constantFrom('ml.c5.xlarge', 'ml.g4dn.xlarge', 'ml.m5.large'),
      initialInstanceCount: fc.integer({ min: 1, max: 3 }),
      environment: validEnvironment,
    },
    { requiredKeys: ['instanceType'] },
  ),
  fc.record(
    {
      serverless: fc.record(
        {
          memorySizeMb: fc.constantFrom(1024, 2048, 3072, 4096, 5120, 6144),
          maxConcurrency: fc.integer({ min: 1, max: 200 }),
        },
        { requiredKeys: ['memorySizeMb'] },
      ),
      environment: validEnvironment,
    },
    { requiredKeys: ['serverless'] },
  ),
);

const validInput = fc.record(
  {
    model: fc.record({
      artifactUri: fc.constant('s3://mso-artifacts/models/m.onnx'),
      framework: fc.constant('onnx'),
      environment: validEnvironment,
    }),
    payload: fc.record({ uri: fc.constant('s3://mso-artifacts/p.json') }),
    candidates: fc.array(validCandidate, { minLength: 1, maxLength: 3 }),
    environmentRanges: objectOf(
      nameOrSpecial,
      fc.array(fc.string({ maxLength: 4 }), { minLength: 1, maxLength: 2 }),
      2,
    ),
    loadPlan: fc.record({
      steps: fc
        .uniqueArray(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 3 })
        .map((steps) => [...steps].sort((a, b) => a - b)),
      warmupSeconds: fc.integer({ min: 0, max: 10 }),
      stepDurationSeconds: fc.double({ min: 0.1, max: 60, noNaN: true }),
    }),
    sla: fc.record({ p95LatencyMs: fc.integer({ min: 1, max: 1000 }) }),
    pricing: fc.record({
      usdPerHour: objectOf(
        fc.oneof(
          { arbitrary: fc.constantFrom('ml.c5.xlarge', 'ml.x9.huge'), weight: 19 },
          { arbitrary: specialKey, weight: 1 },
        ),
        fc.double({ min: 0.01, max: 100, noNaN: true }),
        2,
      ),
    }),
    tags: objectOf(
      fc.oneof(
        { arbitrary: fc.stringMatching(/^team[a-z0-9]{0,6}$/), weight: 19 },
        { arbitrary: specialKey, weight: 1 },
      ),
      fc.stringMatching(/^[a-z0-9 ]{0,6}$/),
      3,
    ),
  },
  { requiredKeys: ['model', 'payload', 'candidates', 'loadPlan', 'sla'] },
);

const anyInput = fc.oneof(
  { arbitrary: validInput, weight: 4 },
  { arbitrary: runInput, weight: 5 },
  { arbitrary: fc.jsonValue(), weight: 1 },
);

type Outcome = { kind: 'parsed'; value: unknown } | { kind: 'refused'; error: unknown };

function validate(input: unknown): Outcome {
  try {
    return { kind: 'parsed', value: parseOrThrow(runInputSchema, input) };
  } catch (error) {
    return { kind: 'refused', error };
  }
}

/** Every key path of a JSON value, e.g. `tags/team`, `candidates/0/environment/A`. */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.keys(value).flatMap((key) => {
    const path = `${prefix}${key}`;
    return [path, ...keyPaths((value as Record<string, unknown>)[key], `${path}/`)];
  });
}

describe('run input validation under fuzzing', () => {
  it('never crashes: an input parses, or is refused with issues that each name a field, a given and an expected', () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        // Act
        const outcome = validate(input);

        // Assert
        if (outcome.kind === 'parsed') return;
        expect(outcome.error).toBeInstanceOf(InvalidRunInputError);
        const { issues } = outcome.error as InvalidRunInputError;
        expect(issues.length).toBeGreaterThan(0);
        for (const issue of issues) {
          expect([typeof issue.field, typeof issue.given, typeof issue.expected]).toEqual([
            'string',
            'string',
            'string',
          ]);
          expect([issue.field, issue.given, issue.expected].every((text) => text.length > 0)).toBe(true);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('drops nothing it accepts: every key given is kept, and a JSON round trip parses the same', () => {
    fc.assert(
      fc.property(validInput, (input) => {
        // Act
        const outcome = validate(input);

        // Assert
        if (outcome.kind === 'refused') return;
        const kept = new Set(keyPaths(outcome.value));
        expect(keyPaths(input).filter((path) => !kept.has(path))).toEqual([]);
        expect(validate(JSON.parse(JSON.stringify(input)))).toEqual(outcome);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
