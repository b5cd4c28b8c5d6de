import { describe, expect, it } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { ModelApprovalTriggerProps } from '../../../infra/constructs/model-approval-trigger.js';
import { ModelApprovalTrigger } from '../../../infra/constructs/model-approval-trigger.js';
import { ServingOptimizerStack } from '../../../infra/stacks/serving-optimizer-stack.js';
import { createTestApp, TEST_ENV } from '../app.js';
import { expectNoUnacknowledgedNagFindings } from '../nag.js';
import { grantsOf, logicalIdOf, propertiesOf } from '../policy-grants.js';

const STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const TEMPLATE_INPUT = {
  model: { framework: 'xgboost', frameworkVersion: '1.7' },
  payload: { uri: 's3://mso-artifacts/models/churn/payload.csv', contentType: 'text/csv' },
  candidates: [{ id: 'm5', instanceType: 'ml.m5.xlarge' }],
  loadPlan: { steps: [4, 16], warmupSeconds: 10, stepDurationSeconds: 45 },
  sla: { p95LatencyMs: 20 },
};

/** The trigger alone, on a stack without the workflows, against an imported state machine. */
function buildTrigger(props: Partial<Omit<ModelApprovalTriggerProps, 'stateMachine' | 'lambdas'>> = {}) {
  const app = createTestApp();
  const stack = new ServingOptimizerStack(app, 'ModelApprovalTest', {
    env: TEST_ENV,
    includeWorkflows: false,
  });
  const stateMachine = StateMachine.fromStateMachineArn(stack, 'Optimization', STATE_MACHINE_ARN);
  const trigger = new ModelApprovalTrigger(stack, 'ModelApproval', {
    lambdas: stack,
    stateMachine,
    modelPackageGroups: ['churn-xgboost', 'fraud-detection'],
    template: { input: TEMPLATE_INPUT },
    ...props,
  });
  return { stack, trigger };
}

describe('ModelApprovalTrigger', () => {
  describe('with two model package groups', () => {
    const { stack, trigger } = buildTrigger();
    const template = Template.fromStack(stack);
    const functionId = logicalIdOf(stack, trigger.startApprovedModelRun);
    const queueId = logicalIdOf(stack, trigger.deadLetterQueue);

    it('matches approved versions of the configured groups only', () => {
      // Act
      const rule = propertiesOf(template, logicalIdOf(stack, trigger.rule));

      // Assert
      expect(rule.EventPattern).toEqual({
        source: ['aws.sagemaker'],
        'detail-type': ['SageMaker Model Package State Change'],
        detail: {
          ModelPackageGroupName: ['churn-xgboost', 'fraud-detection'],
          ModelApprovalStatus: ['Approved'],
        },
      });
      expect(rule.Targets).toEqual([
        {
          Id: 'Target0',
          Arn: { 'Fn::GetAtt': [functionId, 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } },
          RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 6 * 3600 },
        },
      ]);
    });

    it('lets the Lambda start the optimization state machine only, and write to its queue', () => {
      // Act
      const grants = grantsOf(template, logicalIdOf(stack, trigger.startApprovedModelRun.serviceRole));

      // Assert
      const logGroup = logicalIdOf(stack, trigger.startApprovedModelRun.functionLogGroup);
      expect(grants).toEqual(
        [
          `Allow states:StartExecution on ${STATE_MACHINE_ARN}`,
          `Allow sqs:GetQueueAttributes on <${queueId}.Arn>`,
          `Allow sqs:GetQueueUrl on <${queueId}.Arn>`,
          `Allow sqs:SendMessage on <${queueId}.Arn>`,
          `Allow logs:CreateLogStream on <${logGroup}.Arn>`,
          `Allow logs:PutLogEvents on <${logGroup}.Arn>`,
          'Allow xray:PutTelemetryRecords on *',
          'Allow xray:PutTraceSegments on *',
        ].sort(),
      );
    });

    it('gives the Lambda the state machine and the checked template, and sends its failed invocations to the queue', () => {
      // Act
      const lambda = propertiesOf(template, functionId);

      // Assert
      expect(lambda.Environment).toEqual({
        Variables: expect.objectContaining({
          STEP_NAME: 'start-approved-model-run',
          OPTIMIZATION_STATE_MACHINE_ARN: STATE_MACHINE_ARN,
          APPROVED_MODEL_RUN_TEMPLATE: JSON.stringify({ input: TEMPLATE_INPUT, fromPackage: [] }),
        }),
      });
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: functionId },
        MaximumRetryAttempts: 2,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
      });
    });

    it('lets only the rule invoke the Lambda', () => {
      // Assert
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] },
        Principal: 'events.amazonaws.com',
        SourceArn: { 'Fn::GetAtt': [logicalIdOf(stack, trigger.rule), 'Arn'] },
      });
    });

    it('has no unacknowledged AwsSolutions findings', () => {
      // Assert
      expectNoUnacknowledgedNagFindings(stack);
    });
  });

  it('fails when the template gives the model URI the package fills', () => {
    // Prepare
    const input = {
      ...TEMPLATE_INPUT,
      model: { ...TEMPLATE_INPUT.model, artifactUri: 's3://b/model.tar.gz' },
    };

    // Act
    const act = () => buildTrigger({ template: { input } });

    // Assert
    expect(act).toThrow(
      'ModelApprovalTrigger template: Invalid run input: input.model.artifactUri: got "s3://b/model.tar.gz", ' +
        "expected nothing: the approved package's ModelDataUrl fills it",
    );
  });

  it('fails when the template cannot make a valid run input, naming the field', () => {
    // Act
    const act = () => buildTrigger({ template: { input: { ...TEMPLATE_INPUT, sla: {} } } });

    // Assert
    expect(act).toThrow(/ModelApprovalTrigger template: Invalid run input: input\.sla/);
  });

  it('fails when the template points at a local file', () => {
    // Act
    const act = () =>
      buildTrigger({ template: { input: { ...TEMPLATE_INPUT, payload: { uri: 'file:///tmp/p.csv' } } } });

    // Assert
    expect(act).toThrow(
      /ModelApprovalTrigger template: Invalid run input: input\.payload\.uri: got "file:\/\/\/tmp\/p\.csv", expected an s3:\/\/ URI/,
    );
  });

  it('fails when a model package group name is not one', () => {
    // Act
    const act = () => buildTrigger({ modelPackageGroups: ['churn_xgboost'] });

    // Assert
    expect(act).toThrow(
      /ModelApprovalTrigger modelPackageGroups\[0\]: got "churn_xgboost", expected a model package group name/,
    );
  });

  it('fails without a model package group', () => {
    // Act
    const act = () => buildTrigger({ modelPackageGroups: [] });

    // Assert
    expect(act).toThrow('ModelApprovalTrigger modelPackageGroups: got none, expected at least one');
  });

  it('fails when the template is too large for the Lambda environment', () => {
    // Prepare
    const tags = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`tag-${i}`, 'v'.repeat(80)]));

    // Act
    const act = () => buildTrigger({ template: { input: { ...TEMPLATE_INPUT, tags } } });

    // Assert
    expect(act).toThrow(/ModelApprovalTrigger template: got \d+ characters of JSON, expected at most 3000/);
  });
});
