import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { ErrorNames } from '../../core/contracts/errors.js';
import { OPTIMIZATION_STEPS, OptimizationStates } from '../../core/contracts/optimization-state.js';
import { OPTIMIZATION_RUN_TIMEOUT_SECONDS, RUN_LIMITS } from '../../core/contracts/run-input.js';
import { ServingOptimizerStack } from '../../infra/stacks/serving-optimizer-stack.js';
import { walkStates } from '../../local/runner/asl.js';
import type { ExtractedStateMachine, JsonObject } from '../../local/runner/index.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { createTestApp, TEST_ENV } from '../infra/app.js';

let workflows: SynthesizedWorkflows;
let template: Template;

beforeAll(() => {
  workflows = synthesizedWorkflows();
  const app = createTestApp();
  template = Template.fromStack(new ServingOptimizerStack(app, 'Definition', { env: TEST_ENV }));
}, 120_000);

function states(): { name: string; state: JsonObject }[] {
  return [...walkStates(workflows.optimization.definition)].map(({ name, state }) => ({ name, state }));
}

function byName(name: string): JsonObject {
  const found = states().find((s) => s.name === name);
  if (found === undefined) throw new Error(`No state named ${name}`);
  return found.state;
}

/** The `STEP_NAME` of each Lambda the state machine's Task states invoke, sorted. */
function invokedStepNames(machine: ExtractedStateMachine): string[] {
  return Object.values(machine.resources)
    .filter((resource) => resource.type === 'AWS::Lambda::Function')
    .map((resource) => {
      const environment = resource.properties.Environment as
        { Variables?: Record<string, unknown> } | undefined;
      return String(environment?.Variables?.STEP_NAME);
    })
    .sort();
}

describe('optimization state machine definition', () => {
  it('invokes every registered step Lambda, and no other', () => {
    // Act
    const invoked = invokedStepNames(workflows.optimization);

    // Assert
    expect(invoked).toEqual(Object.values(OPTIMIZATION_STEPS).sort());
  });

  it('has a state of every name the contract gives other layers (progress, run API, CLIs)', () => {
    // Act
    const names = new Set(states().map(({ name }) => name));

    // Assert
    expect(Object.values(OptimizationStates).filter((name) => !names.has(name))).toEqual([]);
  });

  it('is a Standard state machine with X-Ray and logs that leave execution data out', () => {
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: Match.objectLike({ Level: 'ALL', IncludeExecutionData: false }),
    });
  });

  it('times a run out after the shared timeout, which bounds compilation to half of it', () => {
    expect([
      workflows.optimization.definition.TimeoutSeconds,
      RUN_LIMITS.maxCompilationRuntimeSeconds,
    ]).toEqual([OPTIMIZATION_RUN_TIMEOUT_SECONDS, OPTIMIZATION_RUN_TIMEOUT_SECONDS / 2]);
  });

  it('gives every Task a timeout', () => {
    const tasks = states().filter(({ state }) => state.Type === 'Task');

    expect(tasks.length).toBeGreaterThanOrEqual(13);
    expect(tasks.filter(({ state }) => typeof state.TimeoutSeconds !== 'number').map((t) => t.name)).toEqual(
      [],
    );
  });

  it('retries only named errors, never every error', () => {
    const retried = states().flatMap(({ name, state }) =>
      ((state.Retry ?? []) as JsonObject[]).map((retry) => ({ name, errors: retry.ErrorEquals as string[] })),
    );

    expect(retried.length).toBeGreaterThan(0);
    expect(
      retried.filter(({ errors }) => errors.includes('States.ALL') || errors.includes('States.TaskFailed')),
    ).toEqual([]);
    expect(byName('Delete candidate endpoint').Retry).toEqual(
      expect.arrayContaining([expect.objectContaining({ ErrorEquals: [ErrorNames.resourceBusy] })]),
    );
  });

  it('retries with full jitter everywhere, in both state machines', () => {
    const retriers = [workflows.optimization.definition, workflows.asyncInference.definition].flatMap(
      (definition) =>
        [...walkStates(definition)].flatMap(({ name, state }) =>
          ((state.Retry ?? []) as JsonObject[]).map((retry) => ({ name, jitter: retry.JitterStrategy })),
        ),
    );

    expect(retriers.length).toBeGreaterThan(0);
    expect(retriers.filter(({ jitter }) => jitter !== 'FULL')).toEqual([]);
  });

  it('waits for instance capacity when deploying: QuotaExceededError retried for over 30 minutes', () => {
    const quota = ((byName('Deploy candidate').Retry ?? []) as JsonObject[]).find((retry) =>
      (retry.ErrorEquals as string[]).includes(ErrorNames.quotaExceeded),
    );

    expect(quota).toEqual({
      ErrorEquals: [ErrorNames.quotaExceeded],
      IntervalSeconds: 60,
      BackoffRate: 2,
      MaxDelaySeconds: 900,
      MaxAttempts: 12,
      JitterStrategy: 'FULL',
    });
    // Full jitter draws each wait between 0 and its interval: on average half of the intervals' sum.
    const intervals = Array.from({ length: 12 }, (_, attempt) => Math.min(900, 60 * 2 ** attempt));
    const meanWaitSeconds = intervals.reduce((sum, seconds) => sum + seconds, 0) / 2;
    expect(meanWaitSeconds).toBeGreaterThan(30 * 60);
  });

  it('keeps the state in every Catch (ResultPath), so clean-up knows what to delete', () => {
    const catches = states().flatMap(({ name, state }) =>
      ((state.Catch ?? []) as JsonObject[]).map((c) => ({ name, resultPath: c.ResultPath })),
    );

    expect(catches.length).toBeGreaterThan(0);
    expect(catches.filter(({ resultPath }) => typeof resultPath !== 'string').map((c) => c.name)).toEqual([]);
  });

  it('sends every failure after planning to clean-up, and refuses bad input before anything exists', () => {
    expect(byName('Optimize').Catch).toEqual([
      { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Clean up after failure' },
    ]);
    expect(byName('Validate and plan').Catch).toEqual([
      {
        ErrorEquals: [ErrorNames.invalidRunInput, ErrorNames.budgetExceeded],
        ResultPath: '$.error',
        Next: 'Run refused',
      },
    ]);
  });

  it('starts all load workers of a candidate at once and bounds candidates by the input', () => {
    // No MaxConcurrency means no limit (Step Functions runs up to 40 inline iterations at once).
    expect(byName('Run load workers').MaxConcurrency ?? 0).toBe(0);
    expect(byName('Run load workers').ItemsPath).toBe('$.deployment.workerIndexes');
    expect(byName('Benchmark each candidate')).toMatchObject({
      MaxConcurrencyPath: '$.plan.maxConcurrentCandidates',
    });
  });

  it('polls with waits whose length the checkers return (back-off)', () => {
    expect(byName('Wait for endpoint')).toMatchObject({ SecondsPath: '$.deployment.waitSeconds' });
    expect(byName('Wait for compilation')).toMatchObject({ SecondsPath: '$.job.waitSeconds' });
  });
});

describe('optimization step permissions', () => {
  function statementsOf(functionId: string): JsonObject[] {
    const policies = template.findResources('AWS::IAM::Policy');
    return Object.entries(policies)
      .filter(([id]) => id.startsWith(`${functionId}Role`))
      .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as JsonObject[]);
  }

  it('lets deploy-candidate create only resources named with the mso- prefix, and pass only the SageMaker role', () => {
    const statements = statementsOf('DeployCandidate');

    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: expect.arrayContaining(['sagemaker:CreateEndpoint', 'sagemaker:CreateModel']),
        Resource: [
          'arn:aws:sagemaker:us-east-1:123456789012:endpoint-config/mso-*',
          'arn:aws:sagemaker:us-east-1:123456789012:endpoint/mso-*',
          'arn:aws:sagemaker:us-east-1:123456789012:model/mso-*',
        ],
      }),
    );
    const passRole = statements.find((s) => s.Action === 'iam:PassRole');
    expect(passRole?.Resource).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^SageMakerExecution/), 'Arn'],
    });
  });

  it('lets validate-and-plan list Service Quotas (no resource-level permissions there), and nothing more', () => {
    const quotaActions = statementsOf('ValidateAndPlan').flatMap((statement) =>
      ([statement.Action].flat() as string[])
        .filter((action) => action.startsWith('servicequotas:'))
        .map((action) => [action, statement.Resource]),
    );

    expect(quotaActions.sort()).toEqual([
      ['servicequotas:ListAWSDefaultServiceQuotas', '*'],
      ['servicequotas:ListServiceQuotas', '*'],
    ]);
  });

  it('lets nothing but the clean-up Lambdas list SageMaker resources, and no step delete what it did not name', () => {
    const listing = Object.keys(template.findResources('AWS::IAM::Policy')).filter((id) =>
      JSON.stringify(template.toJSON().Resources[id]).includes('sagemaker:ListEndpoints'),
    );
    // The two workflows' clean-up steps and the safety net's two Lambdas (infra/constructs/safety-net.ts).
    expect(listing.sort()).toEqual([
      expect.stringMatching(/^CleanUpAsyncRunRole/),
      expect.stringMatching(/^CleanUpFailedRunRole/),
      expect.stringMatching(/^CleanUpRole/),
      expect.stringMatching(/^JanitorRole/),
    ]);

    const deletes = statementsOf('DeleteCandidate').filter((s) =>
      JSON.stringify(s.Action).includes('sagemaker:DeleteEndpoint'),
    );
    expect(JSON.stringify(deletes)).not.toContain(':endpoint/*');
  });
});
