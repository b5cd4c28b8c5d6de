import { describe, expect, it } from '@jest/globals';
import type { AslDefinition } from '../../../local/runner/asl.js';
import {
  assertRunnableLocally,
  UnsupportedDefinitionError,
} from '../../../local/runner/engine-compatibility.js';

function problemsOf(definition: AslDefinition): readonly string[] {
  try {
    assertRunnableLocally(definition);
    return [];
  } catch (error) {
    if (error instanceof UnsupportedDefinitionError) return error.problems;
    throw error;
  }
}

const task = { Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke', End: true };

describe('assertRunnableLocally', () => {
  it('accepts a JSONPath definition with Map, Parallel, Choice, Retry and Catch', () => {
    // Prepare
    const definition: AslDefinition = {
      StartAt: 'Check',
      States: {
        Check: {
          Type: 'Choice',
          Choices: [{ Not: { Variable: '$.skip', IsPresent: true }, Next: 'Each' }],
          Default: 'Done',
        },
        Each: {
          Type: 'Map',
          ItemsPath: '$.items',
          MaxConcurrency: 2,
          ItemProcessor: {
            ProcessorConfig: { Mode: 'INLINE' },
            StartAt: 'Work',
            States: { Work: { ...task, Retry: [{ ErrorEquals: ['TransientServiceError'] }] } },
          },
          Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Done' }],
          Next: 'Both',
        },
        Both: {
          Type: 'Parallel',
          Branches: [{ StartAt: 'Left', States: { Left: task } }],
          Next: 'Done',
        },
        Done: { Type: 'Succeed' },
      },
    };

    // Act
    const problems = problemsOf(definition);

    // Assert
    expect(problems).toEqual([]);
  });

  it('fails when QueryLanguage is JSONata at the top level', () => {
    // Prepare
    const definition: AslDefinition = {
      QueryLanguage: 'JSONata',
      StartAt: 'A',
      States: { A: { Type: 'Pass', Output: '{% $states.input %}', End: true } },
    };

    // Act
    const problems = problemsOf(definition);

    // Assert
    expect(problems).toEqual([
      expect.stringMatching(/^QueryLanguage is "JSONata": the local engine ignores/),
    ]);
  });

  it('fails when QueryLanguage is JSONata in a state nested in a Map', () => {
    // Prepare
    const definition: AslDefinition = {
      StartAt: 'Each',
      States: {
        Each: {
          Type: 'Map',
          ItemProcessor: {
            StartAt: 'Inner',
            States: { Inner: { Type: 'Pass', QueryLanguage: 'JSONata', End: true } },
          },
          End: true,
        },
      },
    };

    // Act
    const problems = problemsOf(definition);

    // Assert
    expect(problems).toEqual([
      expect.stringContaining('States.Each.ItemProcessor.States.Inner.QueryLanguage is "JSONata"'),
    ]);
  });

  it('fails when a state uses Assign (variables)', () => {
    // Prepare
    const definition: AslDefinition = {
      StartAt: 'A',
      States: { A: { Type: 'Pass', Assign: { runId: '$.runId' }, End: true } },
    };

    // Act
    const problems = problemsOf(definition);

    // Assert
    expect(problems).toEqual([expect.stringContaining('state "A": uses Assign')]);
  });

  it('fails when a Choice rule uses IsPresent false, which the engine never matches', () => {
    // Prepare
    const definition: AslDefinition = {
      StartAt: 'C',
      States: {
        C: {
          Type: 'Choice',
          Choices: [{ And: [{ Variable: '$.x', IsPresent: false }], Next: 'D' }],
          Default: 'D',
        },
        D: { Type: 'Succeed' },
      },
    };

    // Act
    const problems = problemsOf(definition);

    // Assert
    expect(problems).toEqual([
      expect.stringContaining(
        '"IsPresent": false, which the local engine never matches; write it as Not { "IsPresent": true }',
      ),
    ]);
  });

  it('fails when ResultPath is "$", on the state or on a Catch', () => {
    // Prepare
    const definition: AslDefinition = {
      StartAt: 'A',
      States: {
        A: { ...task, ResultPath: '$', Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$', Next: 'B' }] },
        B: { Type: 'Succeed' },
      },
    };

    // Act
    const problems = problemsOf(definition);

    // Assert
    expect(problems).toEqual([
      expect.stringContaining('state "A": ResultPath "$"'),
      expect.stringContaining('state "A": a Catch with ResultPath "$"'),
    ]);
  });

  it('fails when two states share a name in different scopes', () => {
    // Prepare
    const definition: AslDefinition = {
      StartAt: 'Work',
      States: {
        Work: { Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke', Next: 'Each' },
        Each: {
          Type: 'Map',
          ItemProcessor: { StartAt: 'Work', States: { Work: task } },
          End: true,
        },
      },
    };

    // Act
    const problems = problemsOf(definition);

    // Assert
    expect(problems).toEqual([
      expect.stringContaining('state "Work" (inside "Each"): the name is also used at the top level'),
    ]);
  });

  it('fails when a Map uses Distributed Map features', () => {
    // Prepare
    const definition: AslDefinition = {
      StartAt: 'Each',
      States: {
        Each: {
          Type: 'Map',
          ItemReader: { Resource: 'arn:aws:states:::s3:listObjectsV2' },
          ItemProcessor: {
            ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
            StartAt: 'Inner',
            States: { Inner: { Type: 'Succeed' } },
          },
          End: true,
        },
      },
    };

    // Act
    const problems = problemsOf(definition);

    // Assert
    expect(problems).toEqual([
      expect.stringContaining('ItemReader (Distributed Map) is not supported'),
      expect.stringContaining('ProcessorConfig.Mode DISTRIBUTED is not supported'),
    ]);
  });

  it('fails when a Task sets its timeouts through paths', () => {
    // Prepare
    const definition: AslDefinition = {
      StartAt: 'A',
      States: { A: { ...task, TimeoutSecondsPath: '$.timeout', HeartbeatSecondsPath: '$.beat' } },
    };

    // Act
    const problems = problemsOf(definition);

    // Assert
    expect(problems).toEqual([
      expect.stringContaining('TimeoutSecondsPath is not supported locally'),
      expect.stringContaining('HeartbeatSecondsPath is not supported locally'),
    ]);
  });

  it('lists every problem in the error message', () => {
    // Prepare
    const definition: AslDefinition = {
      StartAt: 'A',
      States: { A: { Type: 'Pass', Assign: {}, ResultPath: '$', End: true } },
    };

    // Act
    const check = () => {
      assertRunnableLocally(definition);
    };

    // Assert
    expect(check).toThrow(
      /cannot run locally as it would on AWS:\n {2}- .*Assign.*\n {2}- .*ResultPath "\$"/,
    );
  });
});
