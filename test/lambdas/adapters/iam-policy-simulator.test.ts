import { IAMClient, SimulatePrincipalPolicyCommand } from '@aws-sdk/client-iam';
import {
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  DescribeModelCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { afterEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { IamPolicySimulator } from '../../../lambdas/adapters/iam-policy-simulator.js';
import { SageMakerEndpointRoleReader } from '../../../lambdas/adapters/sagemaker-endpoint-role.js';

const ROLE = 'arn:aws:iam::123456789012:role/team-endpoint';
const KEY = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const SUCCESS = 'arn:aws:sns:us-east-1:123456789012:mso-async-success';
const ERROR = 'arn:aws:sns:us-east-1:123456789012:mso-async-error';

const iam = mockClient(IAMClient);
const sagemaker = mockClient(SageMakerClient);

afterEach(() => {
  iam.reset();
  sagemaker.reset();
});

describe('IamPolicySimulator', () => {
  it('simulates each action on its resources with its context, and reports the denied ones', async () => {
    // Prepare
    iam
      .on(SimulatePrincipalPolicyCommand)
      .resolvesOnce({
        EvaluationResults: [
          {
            EvalActionName: 'sns:Publish',
            EvalDecision: 'implicitDeny',
            ResourceSpecificResults: [
              { EvalResourceName: SUCCESS, EvalResourceDecision: 'allowed' },
              { EvalResourceName: ERROR, EvalResourceDecision: 'implicitDeny' },
            ],
          },
        ],
      })
      .resolvesOnce({
        EvaluationResults: [
          { EvalActionName: 'kms:Decrypt', EvalResourceName: KEY, EvalDecision: 'explicitDeny' },
        ],
      });
    const simulator = new IamPolicySimulator(new IAMClient({}));

    // Act
    const simulation = await simulator.simulate(ROLE, [
      { action: 'sns:Publish', resourceArns: [SUCCESS, ERROR] },
      {
        action: 'kms:Decrypt',
        resourceArns: [KEY],
        context: { 'kms:ViaService': 'sns.us-east-1.amazonaws.com' },
      },
    ]);

    // Assert
    expect(iam.commandCalls(SimulatePrincipalPolicyCommand).map((call) => call.args[0].input)).toEqual([
      { PolicySourceArn: ROLE, ActionNames: ['sns:Publish'], ResourceArns: [SUCCESS, ERROR] },
      {
        PolicySourceArn: ROLE,
        ActionNames: ['kms:Decrypt'],
        ResourceArns: [KEY],
        ContextEntries: [
          {
            ContextKeyName: 'kms:ViaService',
            ContextKeyValues: ['sns.us-east-1.amazonaws.com'],
            ContextKeyType: 'string',
          },
        ],
      },
    ]);
    expect(simulation).toEqual({
      status: 'simulated',
      denied: [
        { action: 'sns:Publish', resourceArn: ERROR, decision: 'implicitDeny' },
        { action: 'kms:Decrypt', resourceArn: KEY, decision: 'explicitDeny' },
      ],
    });
  });

  it('reads every page of a truncated answer', async () => {
    // Prepare
    iam
      .on(SimulatePrincipalPolicyCommand)
      .resolvesOnce({ EvaluationResults: [], IsTruncated: true, Marker: 'page-2' })
      .resolvesOnce({ EvaluationResults: [] });
    const simulator = new IamPolicySimulator(new IAMClient({}));

    // Act
    await simulator.simulate(ROLE, [{ action: 'sns:Publish', resourceArns: [SUCCESS] }]);

    // Assert
    expect(iam.commandCalls(SimulatePrincipalPolicyCommand)[1]?.args[0].input).toEqual({
      PolicySourceArn: ROLE,
      ActionNames: ['sns:Publish'],
      ResourceArns: [SUCCESS],
      Marker: 'page-2',
    });
  });

  it('reports the simulation unavailable, with the reason, when IAM refuses it', async () => {
    // Prepare
    iam.on(SimulatePrincipalPolicyCommand).rejects(
      Object.assign(new Error('User is not authorized to perform iam:SimulatePrincipalPolicy'), {
        name: 'AccessDenied',
      }),
    );
    const simulator = new IamPolicySimulator(new IAMClient({}));

    // Act
    const simulation = await simulator.simulate(ROLE, [{ action: 'sns:Publish', resourceArns: [SUCCESS] }]);

    // Assert
    expect(simulation).toEqual({
      status: 'unavailable',
      reason: `iam:SimulatePrincipalPolicy on ${ROLE} failed: AccessDenied: User is not authorized to perform iam:SimulatePrincipalPolicy`,
    });
  });
});

describe('SageMakerEndpointRoleReader', () => {
  it("reads the execution role of the endpoint's first model", async () => {
    // Prepare
    sagemaker.on(DescribeEndpointCommand).resolves({ EndpointConfigName: 'team-config' });
    sagemaker
      .on(DescribeEndpointConfigCommand)
      .resolves({ ProductionVariants: [{ VariantName: 'AllTraffic', ModelName: 'team-model' }] });
    sagemaker.on(DescribeModelCommand).resolves({ ExecutionRoleArn: ROLE });
    const reader = new SageMakerEndpointRoleReader(new SageMakerClient({}));

    // Act
    const role = await reader.executionRoleOf('team-endpoint');

    // Assert
    expect(role).toBe(ROLE);
    expect(sagemaker.commandCalls(DescribeEndpointConfigCommand)[0]?.args[0].input).toEqual({
      EndpointConfigName: 'team-config',
    });
    expect(sagemaker.commandCalls(DescribeModelCommand)[0]?.args[0].input).toEqual({
      ModelName: 'team-model',
    });
  });
});
