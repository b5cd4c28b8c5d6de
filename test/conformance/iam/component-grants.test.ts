/**
 * The grants of an endpoint of inference components, evaluated as IAM would: a function granted
 * allowCreateEndpoint, allowCreateComponents, allowDeleteComponents and iam:PassRole on the
 * execution role is allowed every request of a component's life, as the SageMaker adapters send
 * them; without one grant, the request that needs it is denied.
 */
import { describe, expect, it } from '@jest/globals';
import { CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  componentsProgress,
  deleteEndpointComponents,
} from '../../../core/deployment/component-lifecycle.js';
import { ProjectFunction } from '../../../infra/constructs/project-function.js';
import { SageMakerGrants } from '../../../infra/constructs/sagemaker-grants.js';
import { createTestApp, FIXTURE_LAMBDAS, FIXTURE_STEP, TEST_ENV } from '../../infra/app.js';
import type { RecordedCall } from '../fake-aws/recorder.js';
import {
  COMPONENT_NAMES,
  COMPONENT_ROLE_ARN,
  componentSpec,
  componentWorld,
  deployComponentEndpoint,
} from '../support/component-endpoint.js';
import { DeployedPolicies } from './deployed-policies.js';
import { IamEvaluator } from './iam-evaluator.js';

type Grant = 'createComponents' | 'deleteComponents';

const TOKEN_MACHINE = 'TokenMachine';

/** One function's template with the grants of a component endpoint, less those left out. */
function template(without: readonly Grant[] = []): Record<string, unknown> {
  const stack = new Stack(createTestApp(), 'ComponentGrants', { env: TEST_ENV });
  const fn = new ProjectFunction(stack, 'Probe', { stepName: FIXTURE_STEP, entryDirectory: FIXTURE_LAMBDAS });
  const grants = new SageMakerGrants(stack);
  grants.allowCreateEndpoint(fn);
  if (!without.includes('createComponents')) grants.allowCreateComponents(fn);
  if (!without.includes('deleteComponents')) grants.allowDeleteComponents(fn);
  fn.addToRolePolicy(
    new PolicyStatement({
      effect: Effect.ALLOW,
      actions: ['iam:PassRole'],
      resources: [COMPONENT_ROLE_ARN],
      conditions: { StringEquals: { 'iam:PassedToService': 'sagemaker.amazonaws.com' } },
    }),
  );
  // The evaluator names a state machine for task tokens, which no request here uses.
  new CfnResource(stack, TOKEN_MACHINE, {
    type: 'AWS::StepFunctions::StateMachine',
    properties: { StateMachineName: 'unused' },
  }).overrideLogicalId(TOKEN_MACHINE);
  return Template.fromStack(stack).toJSON();
}

function evaluator(without: readonly Grant[] = []): IamEvaluator {
  return new IamEvaluator(
    new DeployedPolicies({
      template: template(without),
      env: { partition: 'aws', ...TEST_ENV },
      synthesizedFor: TEST_ENV,
    }),
    { taskTokenStateMachine: TOKEN_MACHINE },
  );
}

/**
 * A component's whole life, sent as the function: endpoint config, component, the waits, the
 * deletion rounds. The model and endpoint requests are the existing grants' (CreateModel also
 * reads the artifact with the execution role, which this stack does not model), so they are left
 * out of the evaluation.
 */
async function componentLife(): Promise<RecordedCall[]> {
  const world = componentWorld();
  await world.recorder.as(FIXTURE_STEP, async () => {
    await deployComponentEndpoint(world);
    await world.components.createInferenceComponent(componentSpec());
    await componentsProgress(world.components, [COMPONENT_NAMES.component]);
    await componentsProgress(world.components, [COMPONENT_NAMES.component]);
    await deleteEndpointComponents(world.components, COMPONENT_NAMES.endpoint);
  });
  expect(world.recorder.violationLines()).toEqual([]);
  return world.recorder.calls.filter((call) => /InferenceComponent|^CreateEndpointConfig/.test(call.command));
}

describe('the grants of an endpoint of inference components', () => {
  it('allow every request of a component’s life', async () => {
    // Prepare
    const calls = await componentLife();

    // Act
    const verdict = await evaluator().evaluate(calls);

    // Assert
    expect(calls.map((call) => call.command)).toEqual([
      'CreateEndpointConfigCommand',
      'CreateInferenceComponentCommand',
      'DescribeInferenceComponentCommand',
      'DescribeInferenceComponentCommand',
      'ListInferenceComponentsCommand',
      'DeleteInferenceComponentCommand',
    ]);
    expect(verdict).toEqual({ denied: [], known: [], unattributed: [] });
  });

  it('fails when the create grants are missing, naming the component and its endpoint', async () => {
    // Prepare
    const calls = await componentLife();
    const arn = (kind: string, name: string): string =>
      `arn:aws:sagemaker:${TEST_ENV.region}:${TEST_ENV.account}:${kind}/${name}`;

    // Act
    const verdict = await evaluator(['createComponents']).evaluate(
      calls.filter((call) => call.command === 'CreateInferenceComponentCommand'),
    );

    // Assert
    expect(verdict.denied).toEqual([
      `function ${FIXTURE_STEP}: sagemaker:CreateInferenceComponent on ${arn('inference-component', COMPONENT_NAMES.component)} denied (implicit)`,
      `function ${FIXTURE_STEP}: sagemaker:CreateInferenceComponent on ${arn('endpoint', COMPONENT_NAMES.endpoint)} denied (implicit)`,
      `function ${FIXTURE_STEP}: sagemaker:AddTags on ${arn('inference-component', COMPONENT_NAMES.component)} denied (implicit)`,
    ]);
  });

  it('fails when the delete grants are missing, naming the listing and the deletion', async () => {
    // Prepare
    const calls = await componentLife();

    // Act
    const verdict = await evaluator(['deleteComponents']).evaluate(
      calls.filter((call) => /^(List|Delete)InferenceComponent/.test(call.command)),
    );

    // Assert
    expect(verdict.denied).toEqual([
      `function ${FIXTURE_STEP}: sagemaker:ListInferenceComponents on * denied (implicit)`,
      `function ${FIXTURE_STEP}: sagemaker:DeleteInferenceComponent on arn:aws:sagemaker:${TEST_ENV.region}:${TEST_ENV.account}:inference-component/${COMPONENT_NAMES.component} denied (implicit)`,
    ]);
  });
});
