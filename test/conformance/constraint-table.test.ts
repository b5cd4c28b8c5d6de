import { describe, expect, it } from '@jest/globals';
import { NormalizedSchema } from '@smithy/core/schema';
import type { ConstraintTable, ValueConstraint } from './constraints/constraint-types.js';
import { PROJECT_CONSTRAINTS } from './constraints/project-constraints.js';
import { projectOperations } from './constraints/project-operations.js';
import {
  COVERED_OPERATIONS,
  MODEL_REQUIRED_MEMBERS,
  SERVICE_CONSTRAINTS,
} from './constraints/service-constraints.generated.js';
import { SERVICES } from './constraints/services.js';
import { isOperationSchema, membersOf, validateCommand } from './request-validator.js';

/** The SDK's structure schemas reachable from the covered operations' inputs, by Smithy id. */
async function sdkStructures(): Promise<Map<string, NormalizedSchema>> {
  const structures = new Map<string, NormalizedSchema>();
  const visit = (schema: NormalizedSchema): void => {
    if (schema.isStructSchema()) {
      const id = schema.getName(true);
      if (id === undefined || structures.has(id)) return;
      structures.set(id, schema);
      for (const member of Object.values(membersOf(schema))) visit(member);
    } else if (schema.isListSchema() || schema.isMapSchema()) {
      visit(schema.getValueSchema());
    }
  };
  for (const covered of COVERED_OPERATIONS) {
    const [service, operation] = covered.split(':') as [keyof typeof SERVICES, string];
    const sdk = (await import(SERVICES[service].sdkPackage)) as Record<string, unknown>;
    const Command = sdk[`${operation}Command`] as new (input: object) => { schema: unknown };
    const { schema } = new Command({});
    if (!isOperationSchema(schema)) throw new Error(`${operation}Command has no operation schema`);
    visit(NormalizedSchema.of(schema[4] as never));
  }
  return structures;
}

function patternsOf(constraint: ValueConstraint): string[] {
  return [
    ...(constraint.pattern === undefined ? [] : [constraint.pattern]),
    ...[constraint.member, constraint.key, constraint.value].flatMap((nested) =>
      nested === undefined ? [] : patternsOf(nested),
    ),
  ];
}

describe('the constraint tables', () => {
  it('cover every operation the adapters call (regenerate with generate-constraints.ts otherwise)', () => {
    // Act
    const missing = projectOperations()
      .map((op) => `${op.service}:${op.operation}`)
      .filter((op) => !COVERED_OPERATIONS.includes(op));

    // Assert
    expect(missing).toEqual([]);
  });

  it('read the SDK schemas’ required members as the Smithy models declare them', async () => {
    // Prepare
    const structures = await sdkStructures();

    // Act
    const disagreements = [...structures.entries()].flatMap(([id, schema]) => {
      const raw = schema.getSchema() as unknown as readonly unknown[];
      const names = raw[4] as readonly string[];
      const sdkRequired = names.slice(0, typeof raw[6] === 'number' ? raw[6] : 0);
      const modelRequired = MODEL_REQUIRED_MEMBERS[id];
      if (modelRequired === undefined) return [];
      return [...sdkRequired].sort().join() === [...modelRequired].sort().join()
        ? []
        : [`${id}: SDK ${sdkRequired.join(',')} vs model ${modelRequired.join(',')}`];
    });

    // Assert: the installed SDK is newer than the stored model (aws/api-models-aws, April 2025)
    // for three inputs, and its own types agree with its schemas: InvokeEndpointAsync takes an inline
    // `Body` instead of `InputLocation`, PutMetricAlarm an `EvaluationCriteria` instead of the
    // threshold members, CreateInferenceComponent a `Specifications` list (one per instance type)
    // instead of the one `Specification`. Everywhere else the first `requiredCount` members are the
    // model's required.
    expect(structures.size).toBeGreaterThan(50);
    expect(disagreements).toEqual([
      'com.amazonaws.sagemaker#CreateInferenceComponentInput: SDK InferenceComponentName,EndpointName vs model InferenceComponentName,EndpointName,Specification',
      'com.amazonaws.sagemakerruntime#InvokeEndpointAsyncInput: SDK EndpointName vs model EndpointName,InputLocation',
      'com.amazonaws.cloudwatch#PutMetricAlarmInput: SDK AlarmName vs model AlarmName,EvaluationPeriods,ComparisonOperator',
    ]);
  });

  it('key every entry by a member the SDK declares', async () => {
    // Prepare
    const structures = await sdkStructures();
    const tables: ConstraintTable[] = [SERVICE_CONSTRAINTS, PROJECT_CONSTRAINTS];

    // Act
    const unknown = tables
      .flatMap((table) => Object.keys(table))
      .filter((key) => {
        const [structure = '', member = ''] = key.split('$');
        const schema = structures.get(structure);
        return schema === undefined || !(member in membersOf(schema));
      });

    // Assert
    expect(unknown).toEqual([]);
  });

  it('hold only patterns the validator can compile', () => {
    // Prepare
    const patterns = [...Object.values(SERVICE_CONSTRAINTS), ...Object.values(PROJECT_CONSTRAINTS)].flatMap(
      patternsOf,
    );

    // Act
    const check = (): void => {
      for (const pattern of patterns) {
        validateCommand(
          {
            schema: [9, 'test', 'Probe', 0, [3, 'test', 'Probe', 0, ['Value'], [0]], 'unit'],
            input: { Value: 'x' },
          },
          [{ 'test#Probe$Value': { pattern, source: 'test' } }],
        );
      }
    };

    // Assert
    expect(patterns.length).toBeGreaterThan(100);
    expect(check).not.toThrow();
  });
});
