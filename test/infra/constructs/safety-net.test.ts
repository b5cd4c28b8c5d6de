import { describe, expect, it } from '@jest/globals';
import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { SafetyNetProps } from '../../../infra/constructs/safety-net.js';
import type { ProjectFunction } from '../../../infra/constructs/project-function.js';
import {
  inFlightWait,
  resolveGraceMinutes,
  resolveMaxAgeHours,
  resolveSchedule,
  SafetyNet,
} from '../../../infra/constructs/safety-net.js';
import { ServingOptimizerStack } from '../../../infra/stacks/serving-optimizer-stack.js';
import { createTestApp, TEST_ENV } from '../app.js';
import { expectNoUnacknowledgedNagFindings } from '../nag.js';
import { grantsOf, logicalIdOf, propertiesOf, SCHEDULER_TRUST_POLICY } from '../policy-grants.js';

const STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const ASYNC_STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:AsyncInference';
/** DescribeExecution on every execution of one state machine: how the janitor asks whether a run is live. */
const DESCRIBE_EXECUTIONS = (name: string) =>
  `Allow states:DescribeExecution on arn:aws:states:us-east-1:123456789012:execution:${name}:*`;
const OWNED = (kind: string) => `arn:aws:sagemaker:us-east-1:123456789012:${kind}/mso-*`;
/** Deregistering scaling, and deleting the alarms of the project's endpoints (step and target tracking). */
const DEREGISTER_SCALING = [
  'Allow application-autoscaling:DeregisterScalableTarget on ' +
    'arn:aws:application-autoscaling:us-east-1:123456789012:scalable-target/*',
  ...['DeleteAlarms', 'DescribeAlarms'].flatMap((action) =>
    ['mso-*', 'TargetTracking-endpoint/mso-*'].map(
      (alarms) => `Allow cloudwatch:${action} on arn:aws:cloudwatch:us-east-1:123456789012:alarm:${alarms}`,
    ),
  ),
];

/** The safety net alone, on a stack without the workflows, against imported state machines. */
function buildSafetyNet(
  props: Omit<SafetyNetProps, 'stateMachine' | 'asyncStateMachine' | 'lambdas'> & {
    asyncStateMachineArn?: string;
  } = {},
) {
  const { asyncStateMachineArn, ...safetyNetProps } = props;
  const app = createTestApp();
  const stack = new ServingOptimizerStack(app, 'SafetyNetTest', { env: TEST_ENV, includeWorkflows: false });
  const stateMachine = StateMachine.fromStateMachineArn(stack, 'Optimization', STATE_MACHINE_ARN);
  const asyncStateMachine =
    asyncStateMachineArn === undefined
      ? {}
      : {
          asyncStateMachine: StateMachine.fromStateMachineArn(stack, 'AsyncInference', asyncStateMachineArn),
        };
  const safetyNet = new SafetyNet(stack, 'SafetyNet', {
    lambdas: stack,
    stateMachine,
    ...asyncStateMachine,
    ...safetyNetProps,
  });
  return { stack, safetyNet, template: Template.fromStack(stack) };
}

describe('SafetyNet', () => {
  describe('with the default settings', () => {
    const { stack, safetyNet, template } = buildSafetyNet();
    const queueArn = { 'Fn::GetAtt': [logicalIdOf(stack, safetyNet.deadLetterQueue), 'Arn'] };
    const janitorArn = { 'Fn::GetAtt': [logicalIdOf(stack, safetyNet.janitor), 'Arn'] };
    const ruleId = logicalIdOf(stack, safetyNet.failedRunRule);

    const cleanUpMachineId = logicalIdOf(stack, safetyNet.failedRunCleanUp.stateMachine);

    it('starts the "Clean up failed run" state machine for failed, timed-out and aborted executions, with retries and the dead-letter queue', () => {
      // Act
      const rule = propertiesOf(template, ruleId);

      // Assert
      expect(rule.EventPattern).toEqual({
        source: ['aws.states'],
        'detail-type': ['Step Functions Execution Status Change'],
        detail: { status: ['FAILED', 'TIMED_OUT', 'ABORTED'], stateMachineArn: [STATE_MACHINE_ARN] },
      });
      expect(rule.State).toBe('ENABLED');
      expect(rule.Targets).toEqual([
        {
          Id: 'Target0',
          Arn: { Ref: cleanUpMachineId },
          RoleArn: { 'Fn::GetAtt': [expect.stringMatching(/EventsRole/), 'Arn'] },
          DeadLetterConfig: { Arn: queueArn },
          RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 24 * 3600 },
        },
      ]);
    });

    it('gives the rule a role that may only start executions of the clean-up state machine', () => {
      // Prepare
      const targets = propertiesOf(template, ruleId).Targets as {
        RoleArn: { 'Fn::GetAtt': [string, string] };
      }[];
      const roleId = targets[0]?.RoleArn['Fn::GetAtt'][0] ?? '';

      // Act
      const grants = grantsOf(template, roleId);

      // Assert
      expect(grants).toEqual([`Allow states:StartExecution on <${cleanUpMachineId}>`]);
    });

    it('lets the clean-up state machine invoke only the clean-up Lambda, besides logs and traces', () => {
      // Act
      const grants = grantsOf(template, logicalIdOf(stack, safetyNet.failedRunCleanUp.stateMachine.role));

      // Assert
      const cleanUpId = logicalIdOf(stack, safetyNet.cleanUpFailedRun);
      expect(grants).toEqual([
        `Allow lambda:InvokeFunction on <${cleanUpId}.Arn>`,
        `Allow lambda:InvokeFunction on <${cleanUpId}.Arn>:*`,
        ...[
          'CreateLogDelivery',
          'DeleteLogDelivery',
          'DescribeLogGroups',
          'DescribeResourcePolicies',
          'GetLogDelivery',
          'ListLogDeliveries',
          'PutResourcePolicy',
          'UpdateLogDelivery',
        ].map((action) => `Allow logs:${action} on *`),
        ...['GetSamplingRules', 'GetSamplingTargets', 'PutTelemetryRecords', 'PutTraceSegments'].map(
          (action) => `Allow xray:${action} on *`,
        ),
      ]);
    });

    it('logs every event of the clean-up state machine without execution data, traced, as a Standard workflow', () => {
      // Act
      const { DefinitionString: _definition, ...machine } = propertiesOf(template, cleanUpMachineId);

      // Assert
      expect(machine).toEqual({
        StateMachineType: 'STANDARD',
        RoleArn: { 'Fn::GetAtt': [logicalIdOf(stack, safetyNet.failedRunCleanUp.stateMachine.role), 'Arn'] },
        LoggingConfiguration: {
          Destinations: [
            {
              CloudWatchLogsLogGroup: {
                LogGroupArn: {
                  'Fn::GetAtt': [expect.stringMatching(/^SafetyNetFailedRunCleanUpExecutionLogs/), 'Arn'],
                },
              },
            },
          ],
          IncludeExecutionData: false,
          Level: 'ALL',
        },
        TracingConfiguration: { Enabled: true },
      });
    });

    it('waits 90 seconds before the first clean-up: the default 30-second step timeout plus a minute', () => {
      // Assert
      expect(safetyNet.failedRunCleanUp.inFlightWait.toSeconds()).toBe(90);
    });

    it('leaves the clean-up Lambda without asynchronous retries or a rule permission: only the state machine invokes it', () => {
      // Assert
      expect(template.findResources('AWS::Lambda::EventInvokeConfig')).toEqual({});
      expect(template.findResources('AWS::Lambda::Permission')).toEqual({});
    });

    it('gives the clean-up Lambda the workflow clean-up step’s permissions, deregisters scaling and reads the failed execution, mutations scoped to mso-*', () => {
      // Act
      const grants = grantsOf(template, logicalIdOf(stack, safetyNet.cleanUpFailedRun.serviceRole));

      // Assert
      const owned = (action: string, kinds: string[]) =>
        kinds.map((kind) => `Allow ${action} on ${OWNED(kind)}`);
      const hosting = ['endpoint', 'endpoint-config', 'model'];
      expect(grants).toEqual(
        [
          ...[
            'DeleteEndpoint',
            'DeleteEndpointConfig',
            'DeleteModel',
            'DescribeEndpoint',
            'DescribeEndpointConfig',
          ].flatMap((action) => owned(`sagemaker:${action}`, hosting)),
          ...['DescribeCompilationJob', 'StopCompilationJob', 'ListTags', 'AddTags'].flatMap((action) =>
            owned(`sagemaker:${action}`, ['compilation-job', ...hosting]),
          ),
          // Optimization jobs still running are stopped, as compilation jobs are.
          ...['DescribeOptimizationJob', 'StopOptimizationJob'].flatMap((action) =>
            owned(`sagemaker:${action}`, ['optimization-job']),
          ),
          ...[
            'ListCompilationJobs',
            'ListEndpointConfigs',
            'ListEndpoints',
            'ListModels',
            'ListOptimizationJobs',
          ].map((action) => `Allow sagemaker:${action} on *`),
          ...DEREGISTER_SCALING,
          // A run that ended in "No recommendation" has cleaned up: its error says so.
          'Allow states:DescribeExecution on arn:aws:states:us-east-1:123456789012:execution:Optimization:*',
          `Allow logs:CreateLogStream on <${logicalIdOf(stack, safetyNet.cleanUpFailedRun.functionLogGroup)}.Arn>`,
          `Allow logs:PutLogEvents on <${logicalIdOf(stack, safetyNet.cleanUpFailedRun.functionLogGroup)}.Arn>`,
          'Allow xray:PutTelemetryRecords on *',
          'Allow xray:PutTraceSegments on *',
        ].sort(),
      );
    });

    it('keeps undeliverable events in an SSE-encrypted, TLS-only queue that only its two sources write', () => {
      // Prepare
      const queueId = logicalIdOf(stack, safetyNet.deadLetterQueue);

      // Act
      const queue = propertiesOf(template, queueId);

      // Assert
      expect(queue).toEqual({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queueId }],
        PolicyDocument: {
          Statement: [
            {
              Effect: 'Deny',
              Action: 'sqs:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
              Resource: queueArn,
            },
            Match.objectLike({
              Effect: 'Allow',
              Action: 'sqs:SendMessage',
              Principal: { Service: 'events.amazonaws.com' },
              Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
              Resource: queueArn,
            }),
          ],
        },
      });
    });

    it('runs the janitor every 15 minutes with input {}, retries until the next sweep and the dead-letter queue, no flexible window', () => {
      // Act
      const schedule = propertiesOf(template, logicalIdOf(stack, safetyNet.janitorSchedule));

      // Assert
      expect(schedule).toEqual({
        Description:
          'Janitor: deletes project resources 15 minutes after their run ended, or past 25 hours when their ' +
          'run cannot be found',
        ScheduleExpression: 'rate(15 minutes)',
        ScheduleExpressionTimezone: 'Etc/UTC',
        FlexibleTimeWindow: { Mode: 'OFF' },
        State: 'ENABLED',
        Target: {
          Arn: janitorArn,
          RoleArn: { 'Fn::GetAtt': [logicalIdOf(stack, safetyNet.janitorScheduleRole), 'Arn'] },
          Input: '{}',
          DeadLetterConfig: { Arn: queueArn },
          RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 900 },
        },
      });
    });

    it('gives the schedule a role that only Scheduler’s default group assumes and that only invokes the janitor', () => {
      // Prepare
      const roleId = logicalIdOf(stack, safetyNet.janitorScheduleRole);
      const janitorId = logicalIdOf(stack, safetyNet.janitor);

      // Act
      const trust = propertiesOf(template, roleId).AssumeRolePolicyDocument;
      const grants = grantsOf(template, roleId);

      // Assert
      expect(trust).toEqual(SCHEDULER_TRUST_POLICY);
      expect(grants).toEqual([
        `Allow lambda:InvokeFunction on <${janitorId}.Arn>`,
        `Allow lambda:InvokeFunction on <${janitorId}.Arn>:*`,
        `Allow sqs:SendMessage on <${logicalIdOf(stack, safetyNet.deadLetterQueue)}.Arn>`,
      ]);
    });

    it('sweeps ended runs after 15 minutes, runs not found past the 24-hour execution timeout plus one hour, within 5 minutes', () => {
      // Act
      const janitor = propertiesOf(template, logicalIdOf(stack, safetyNet.janitor));

      // Assert
      expect(janitor.Timeout).toBe(300);
      expect(janitor.Environment).toEqual({
        Variables: expect.objectContaining({
          STEP_NAME: 'janitor',
          JANITOR_MAX_AGE_HOURS: '25',
          JANITOR_GRACE_MINUTES: '15',
          OPTIMIZATION_STATE_MACHINE_ARN: STATE_MACHINE_ARN,
        }),
      });
    });

    it('bounds a deletable endpoint after its run ends to 35 minutes: 15 of grace, 15 between sweeps, 5 of sweep', () => {
      // Assert
      expect([safetyNet.graceMinutes, safetyNet.intervalMinutes, safetyNet.boundMinutes]).toEqual([
        15, 15, 35,
      ]);
    });

    it('alarms when a sweep leaves a stale resource it could not delete, within the hour', () => {
      // Act
      const alarm = propertiesOf(template, logicalIdOf(stack, safetyNet.janitorAlarm));

      // Assert
      expect(alarm).toMatchObject({
        Namespace: 'ModelServingOptimizer',
        MetricName: 'StaleResourcesNotDeleted',
        Dimensions: [
          { Name: 'service', Value: 'model-serving-optimizer' },
          { Name: 'step', Value: 'janitor' },
        ],
        Statistic: 'Sum',
        Period: 3600,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
    });

    it('lets the janitor list, describe and delete mso-* resources, deregister scalable targets and delete their alarms', () => {
      // Act
      const grants = grantsOf(template, logicalIdOf(stack, safetyNet.janitor.serviceRole));

      // Assert
      const logGroup = logicalIdOf(stack, safetyNet.janitor.functionLogGroup);
      expect(grants).toEqual(
        [
          ...[
            'DeleteEndpoint',
            'DeleteEndpointConfig',
            'DeleteModel',
            'DescribeEndpoint',
            'DescribeEndpointConfig',
            'ListTags',
          ].flatMap((action) =>
            ['endpoint', 'endpoint-config', 'model'].map(
              (kind) => `Allow sagemaker:${action} on ${OWNED(kind)}`,
            ),
          ),
          ...['ListEndpointConfigs', 'ListEndpoints', 'ListModels'].map(
            (action) => `Allow sagemaker:${action} on *`,
          ),
          ...DEREGISTER_SCALING,
          DESCRIBE_EXECUTIONS('Optimization'),
          `Allow logs:CreateLogStream on <${logGroup}.Arn>`,
          `Allow logs:PutLogEvents on <${logGroup}.Arn>`,
          'Allow xray:PutTelemetryRecords on *',
          'Allow xray:PutTraceSegments on *',
        ].sort(),
      );
    });

    it('has no unacknowledged AwsSolutions findings', () => {
      // Assert
      expectNoUnacknowledgedNagFindings(stack);
    });
  });

  it('sends failed runs of the async state machine to the same clean-up when it is given', () => {
    // Prepare
    const { stack, safetyNet, template } = buildSafetyNet({ asyncStateMachineArn: ASYNC_STATE_MACHINE_ARN });

    // Act
    const rule = propertiesOf(template, logicalIdOf(stack, safetyNet.failedRunRule));

    // Assert
    expect(rule.EventPattern).toEqual({
      source: ['aws.states'],
      'detail-type': ['Step Functions Execution Status Change'],
      detail: {
        status: ['FAILED', 'TIMED_OUT', 'ABORTED'],
        stateMachineArn: [STATE_MACHINE_ARN, ASYNC_STATE_MACHINE_ARN],
      },
    });
  });

  describe('watching the async state machine too', () => {
    const { stack, safetyNet, template } = buildSafetyNet({ asyncStateMachineArn: ASYNC_STATE_MACHINE_ARN });
    const janitorRole = logicalIdOf(stack, safetyNet.janitor.serviceRole);

    it('sweeps by age only past the async workflow’s 48-hour timeout plus one hour', () => {
      // Act
      const janitor = propertiesOf(template, logicalIdOf(stack, safetyNet.janitor));

      // Assert
      expect(safetyNet.maxAgeHours).toBe(49);
      expect(janitor.Environment).toEqual({
        Variables: expect.objectContaining({
          JANITOR_MAX_AGE_HOURS: '49',
          OPTIMIZATION_STATE_MACHINE_ARN: STATE_MACHINE_ARN,
          ASYNC_INFERENCE_STATE_MACHINE_ARN: ASYNC_STATE_MACHINE_ARN,
        }),
      });
    });

    it('lets the janitor describe the executions of both state machines, and no other Step Functions action', () => {
      // Act
      const grants = grantsOf(template, janitorRole).filter((grant) => grant.includes(' states:'));

      // Assert
      expect(grants).toEqual([DESCRIBE_EXECUTIONS('AsyncInference'), DESCRIBE_EXECUTIONS('Optimization')]);
    });

    it('has no unacknowledged AwsSolutions findings', () => {
      // Assert
      expectNoUnacknowledgedNagFindings(stack);
    });
  });

  it('fails when the maximum age does not exceed the async execution timeout', () => {
    // Act
    const act = () =>
      buildSafetyNet({ asyncStateMachineArn: ASYNC_STATE_MACHINE_ARN, janitor: { maxAgeHours: 25 } });

    // Assert
    expect(act).toThrow(
      'SafetyNet janitor.maxAgeHours: got 25, expected a number of hours from 49 to 2160: more than the ' +
        'longest execution timeout of the watched state machines (2 days)',
    );
  });

  it('applies the janitor settings: rate, grace, maximum age, disabled', () => {
    // Prepare
    const { stack, safetyNet, template } = buildSafetyNet({
      janitor: { schedule: 'rate(20 minutes)', graceMinutes: 30, maxAgeHours: 48, enabled: false },
    });

    // Act
    const schedule = propertiesOf(template, logicalIdOf(stack, safetyNet.janitorSchedule));
    const janitor = propertiesOf(template, logicalIdOf(stack, safetyNet.janitor));

    // Assert
    expect(schedule).toMatchObject({ ScheduleExpression: 'rate(20 minutes)', State: 'DISABLED' });
    expect(janitor.Environment).toEqual({
      Variables: expect.objectContaining({ JANITOR_MAX_AGE_HOURS: '48', JANITOR_GRACE_MINUTES: '30' }),
    });
    expect(safetyNet.boundMinutes).toBe(55);
  });

  it('fails when the maximum age does not exceed the execution timeout', () => {
    // Act
    const act = () => buildSafetyNet({ executionTimeout: Duration.hours(12), janitor: { maxAgeHours: 12 } });

    // Assert
    expect(act).toThrow(
      'SafetyNet janitor.maxAgeHours: got 12, expected a number of hours from 13 to 2160: more than the ' +
        'longest execution timeout of the watched state machines (12 hours)',
    );
  });

  describe('inFlightWait', () => {
    it('is the longest timeout of the steps that create resources, plus a minute', () => {
      // Prepare
      const steps = [Duration.seconds(30), Duration.minutes(5)].map(
        (timeout) => ({ timeout }) as unknown as ProjectFunction,
      );

      // Act
      const wait = inFlightWait(steps);

      // Assert
      expect(wait.toSeconds()).toBe(360);
    });
  });

  describe('resolveMaxAgeHours', () => {
    it('defaults to the execution timeout rounded up to hours, plus one', () => {
      // Act
      const hours = resolveMaxAgeHours(undefined, Duration.minutes(90));

      // Assert
      expect(hours).toBe(3);
    });

    it('fails when the maximum age exceeds 90 days', () => {
      // Act
      const act = () => resolveMaxAgeHours(2161, Duration.hours(24));

      // Assert
      expect(act).toThrow(/got 2161, expected a number of hours from 25 to 2160/);
    });

    it('fails when the maximum age is not a number', () => {
      // Act
      const act = () => resolveMaxAgeHours(Number.NaN, Duration.hours(24));

      // Assert
      expect(act).toThrow(/got NaN, expected a number of hours from 25 to 2160/);
    });
  });

  describe('resolveSchedule', () => {
    it('reads the interval of a rate expression in minutes', () => {
      // Act
      const schedules = ['rate(5 minutes)', 'rate(20 minutes)'].map((expression) =>
        resolveSchedule(expression),
      );

      // Assert
      expect(schedules.map((s) => [s.expression.expressionString, s.intervalMinutes])).toEqual([
        ['rate(5 minutes)', 5],
        ['rate(20 minutes)', 20],
      ]);
    });

    it('fails when the schedule is neither rate(...) nor cron(...)', () => {
      // Act
      const act = () => resolveSchedule('every 6 hours');

      // Assert
      expect(act).toThrow(
        /got "every 6 hours", expected an EventBridge Scheduler expression "rate\(<value> <unit>\)" or "cron\(/,
      );
    });

    it('fails when the rate is longer than 20 minutes: the hour after a run ends would not hold', () => {
      // Act
      const act = () => resolveSchedule('rate(6 hours)');

      // Assert
      expect(act).toThrow(
        'SafetyNet janitor.schedule: got "rate(6 hours)", expected a rate from "rate(5 minutes)" to ' +
          '"rate(20 minutes)": with the grace and the sweep\'s 5-minute timeout, the interval bounds how long a ' +
          'deletable endpoint outlives its run (60 minutes at most)',
      );
    });

    it('fails when the schedule is a cron expression, which has no interval to check', () => {
      // Act
      const act = () => resolveSchedule('cron(0 3 * * ? *)');

      // Assert
      expect(act).toThrow(/got "cron\(0 3 \* \* \? \*\)", expected a rate from "rate\(5 minutes\)"/);
    });
  });

  describe('resolveGraceMinutes', () => {
    it('defaults to 15 minutes', () => {
      expect(resolveGraceMinutes(undefined, Duration.seconds(90))).toBe(15);
    });

    it('fails when the grace is shorter than the in-flight wait of a slow creating step', () => {
      // Act
      const act = () => resolveGraceMinutes(10, Duration.minutes(16));

      // Assert
      expect(act).toThrow(
        'SafetyNet janitor.graceMinutes: got 10, expected a number of minutes from 16 to 30: at least 5 and ' +
          'the in-flight wait (16 minutes: a step that creates resources may still be running after its execution ' +
          'ended), and at most 30, so that a deletable endpoint outlives its run by at most 60 minutes',
      );
    });

    it('fails when the grace is above 30 minutes', () => {
      expect(() => resolveGraceMinutes(31, Duration.seconds(90))).toThrow(
        /got 31, expected a number of minutes from 5 to 30/,
      );
    });
  });

  describe('in the ServingOptimizer stack', () => {
    it('derives the janitor’s default age from the longer of the two workflows’ timeouts', () => {
      // Prepare
      const app = createTestApp();

      // Act
      const stack = new ServingOptimizerStack(app, 'DefaultJanitor', {
        env: TEST_ENV,
        asyncInference: { executionTimeout: Duration.hours(72) },
      });

      // Assert
      expect(stack.safetyNet?.maxAgeHours).toBe(73);
    });

    it('watches the optimization and async-inference state machines and takes the stack’s janitor settings', () => {
      // Prepare
      const app = createTestApp();
      const stack = new ServingOptimizerStack(app, 'WithWorkflows', {
        env: TEST_ENV,
        janitor: { schedule: 'rate(10 minutes)', maxAgeHours: 50 },
      });
      const { optimization, asyncInference, safetyNet } = stack;
      if (optimization === undefined || asyncInference === undefined || safetyNet === undefined) {
        throw new Error('expected the workflows and the safety net in a stack with includeWorkflows left on');
      }

      // Act
      const template = Template.fromStack(stack);

      // Assert
      expect(propertiesOf(template, logicalIdOf(stack, safetyNet.failedRunRule)).EventPattern).toMatchObject({
        detail: {
          stateMachineArn: [
            { Ref: logicalIdOf(stack, optimization.stateMachine) },
            { Ref: logicalIdOf(stack, asyncInference.workflow.stateMachine) },
          ],
        },
      });
      expect(propertiesOf(template, logicalIdOf(stack, safetyNet.janitorSchedule)).ScheduleExpression).toBe(
        'rate(10 minutes)',
      );
      expect(safetyNet.maxAgeHours).toBe(50);
    });

    it('alarms on the topic when the clean-up of a failed run gives up or times out, and waits out the creating steps', () => {
      // Prepare
      const app = createTestApp();
      const stack = new ServingOptimizerStack(app, 'WithAlarms', { env: TEST_ENV });
      const { safetyNet, runNotifications } = stack;
      if (safetyNet === undefined || runNotifications === undefined) {
        throw new Error('expected the safety net and the run notifications with includeWorkflows left on');
      }

      // Act
      const template = Template.fromStack(stack);

      // Assert
      const alarm = (metricName: string) => ({
        Namespace: 'AWS/States',
        MetricName: metricName,
        Dimensions: [
          {
            Name: 'StateMachineArn',
            Value: { Ref: logicalIdOf(stack, safetyNet.failedRunCleanUp.stateMachine) },
          },
        ],
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [{ Ref: logicalIdOf(stack, runNotifications.topic) }],
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        ...alarm('ExecutionsFailed'),
        AlarmDescription:
          'FailedRunCleanUp: the clean-up of a failed run gave up after about two hours of retries. The ' +
          'execution’s cause lists what is left, why, and the commands that delete it.',
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', alarm('ExecutionsTimedOut'));
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'StaleResourcesNotDeleted',
        AlarmActions: [{ Ref: logicalIdOf(stack, runNotifications.topic) }],
      });
      // deploy-candidate, start-compilation, deploy-async-endpoint and check-async-endpoint: 30 s each.
      expect(safetyNet.failedRunCleanUp.inFlightWait.toSeconds()).toBe(90);
    });

    it('is left out with the workflows', () => {
      // Prepare
      const app = createTestApp();

      // Act
      const stack = new ServingOptimizerStack(app, 'WithoutWorkflows', {
        env: TEST_ENV,
        includeWorkflows: false,
      });

      // Assert
      expect(stack.safetyNet).toBeUndefined();
      Template.fromStack(stack).resourceCountIs('AWS::Scheduler::Schedule', 0);
    });
  });
});
