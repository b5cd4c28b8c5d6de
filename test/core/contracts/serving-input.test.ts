import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { type InputIssue, InvalidRunInputError } from '../../../core/contracts/errors.js';
import { objectiveOf, type RunInput, runInputSchema } from '../../../core/contracts/run-input.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';

/** A valid run input with `extra` fields merged at the top and `sla` replaced when given. */
function runInput(extra: Record<string, unknown> = {}): unknown {
  return {
    model: { artifactUri: 's3://mso-artifacts/models/cnn/model.onnx', framework: 'onnx' },
    payload: { uri: 's3://mso-artifacts/models/cnn/payload.json' },
    candidates: [{ instanceType: 'ml.c5.xlarge' }],
    loadPlan: { steps: [1, 4] },
    sla: { p95LatencyMs: 100, targetTps: 600 },
    ...extra,
  };
}

function parse(document: unknown): RunInput {
  return parseOrThrow(runInputSchema, document);
}

function issuesOf(document: unknown): readonly InputIssue[] {
  try {
    parse(document);
    return [];
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error.issues;
    throw error;
  }
}

describe('run input: serving settings', () => {
  it('defaults to two instances, 0.7 headroom and cooldowns of 300 s in and 60 s out', () => {
    // Act
    const input = parse(runInput());

    // Assert
    expect(input.availability).toEqual({ minInstances: 2 });
    expect(input.scaling).toEqual({
      headroom: 0.7,
      scaleInCooldownSeconds: 300,
      scaleOutCooldownSeconds: 60,
    });
  });

  it('refuses availability.minInstances of 0, naming the field', () => {
    // Act
    const issues = issuesOf(runInput({ availability: { minInstances: 0 } }));

    // Assert
    expect(issues.map((issue) => [issue.field, issue.given])).toEqual([['availability.minInstances', '0']]);
  });

  it('fails when availability.minInstances is more than InitialInstanceCount can carry, naming the limit', () => {
    // Act
    const issues = issuesOf(runInput({ availability: { minInstances: 2 ** 31 } }));

    // Assert
    expect(issues.map((issue) => [issue.field, issue.given])).toEqual([
      ['availability.minInstances', String(2 ** 31)],
    ]);
    expect(issues[0]?.expected).toContain('at most 2147483647');
    expect(issues[0]?.expected).toContain('for endpoint usage');
  });

  it('refuses a headroom above 1, naming the field', () => {
    // Act
    const issues = issuesOf(runInput({ scaling: { headroom: 1.5 } }));

    // Assert
    expect(issues.map((issue) => [issue.field, issue.given])).toEqual([['scaling.headroom', '1.5']]);
  });

  it('refuses a peak below the target', () => {
    // Act
    const issues = issuesOf(runInput({ scaling: { peakTps: 500 } }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'scaling.peakTps',
        given: '500',
        expected: 'at least sla.targetTps (600): the peak is the highest rate the endpoint scales out to',
      },
    ]);
  });

  it('refuses the lowest-cost-at-target objective without a target TPS', () => {
    // Act
    const issues = issuesOf(runInput({ objective: 'lowest-cost-at-target', sla: { p95LatencyMs: 100 } }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'sla.targetTps',
        given: 'nothing',
        expected: 'a target TPS, which the objective lowest-cost-at-target sizes every candidate for',
      },
    ]);
  });
});

describe('objectiveOf', () => {
  it('ranks on the cost at the target when a target is given and no objective is named', () => {
    // Act
    const objective = objectiveOf(parse(runInput()));

    // Assert
    expect(objective).toBe('lowest-cost-at-target');
  });

  it('keeps ranking on one instance’s cost per 1M when no target is given', () => {
    // Act
    const objective = objectiveOf(parse(runInput({ sla: { p95LatencyMs: 100 } })));

    // Assert
    expect(objective).toBe('lowest-cost-per-1m');
  });

  it('keeps the objective the input names', () => {
    // Act
    const objective = objectiveOf(parse(runInput({ objective: 'highest-tps' })));

    // Assert
    expect(objective).toBe('highest-tps');
  });
});

describe('examples/local-serve-target.json', () => {
  it('asks for 60 TPS, peaking at 100, proves it, and ranks on the cost at that target', () => {
    // Prepare
    const text = readFileSync(new URL('../../../examples/local-serve-target.json', import.meta.url), 'utf8');

    // Act
    const input = parse(JSON.parse(text));

    // Assert
    expect([input.sla.targetTps, input.scaling.peakTps, input.prove.enabled, objectiveOf(input)]).toEqual([
      60,
      100,
      true,
      'lowest-cost-at-target',
    ]);
  });
});

describe('run input: rampTest', () => {
  it('defaults to off, its length left to planning', () => {
    // Act
    const input = parse(runInput());

    // Assert
    expect(input.rampTest).toEqual({ enabled: false });
  });

  it('refuses rampTest.enabled without a target TPS, naming the field', () => {
    // Act
    const issues = issuesOf(runInput({ sla: { p95LatencyMs: 100 }, rampTest: { enabled: true } }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'rampTest.enabled',
        given: 'true',
        expected:
          'no ramp test without sla.targetTps: the ramp tests the policy sized for the target; set both',
      },
    ]);
  });

  it('accepts rampTest turned off without a target TPS', () => {
    // Act
    const input = parse(runInput({ sla: { p95LatencyMs: 100 }, rampTest: { enabled: false, seconds: 60 } }));

    // Assert
    expect(input.rampTest).toEqual({ enabled: false, seconds: 60 });
  });

  it('refuses rampTest.seconds below 1, naming the field', () => {
    // Act
    const issues = issuesOf(runInput({ rampTest: { enabled: true, seconds: 0.5 } }));

    // Assert
    expect(issues.map((issue) => [issue.field, issue.given])).toEqual([['rampTest.seconds', '0.5']]);
  });

  it('refuses rampTest.seconds above 7200, naming the field', () => {
    // Act
    const issues = issuesOf(runInput({ rampTest: { enabled: true, seconds: 7201 } }));

    // Assert
    expect(issues.map((issue) => [issue.field, issue.given])).toEqual([['rampTest.seconds', '7201']]);
  });

  it('accepts the bounds 1 and 7200 seconds', () => {
    // Act
    const shortest = parse(runInput({ rampTest: { enabled: true, seconds: 1 } }));
    const longest = parse(runInput({ rampTest: { enabled: true, seconds: 7200 } }));

    // Assert
    expect([shortest.rampTest, longest.rampTest]).toEqual([
      { enabled: true, seconds: 1 },
      { enabled: true, seconds: 7200 },
    ]);
  });

  it('refuses a field rampTest does not know, naming it', () => {
    // Act
    const issues = issuesOf(runInput({ rampTest: { enabled: true, peakTps: 900 } }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'rampTest',
        given: 'unknown field(s) "peakTps"',
        expected: 'only the documented fields (check the spelling)',
      },
    ]);
  });
});
