import { describe, expect, it } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { OperationsDashboard } from '../../../infra/constructs/operations-dashboard.js';
import { RunNotifications } from '../../../infra/constructs/run-notifications.js';
import { flattenCfnReference } from '../../../infra/nag/acknowledge.js';
import { ServingOptimizerStack } from '../../../infra/stacks/serving-optimizer-stack.js';
import { createTestApp, TEST_ENV } from '../app.js';
import { expectNoUnacknowledgedNagFindings } from '../nag.js';
import { logicalIdOf } from '../policy-grants.js';

const OPTIMIZATION_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const ASYNC_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:AsyncInference';

interface Widget {
  readonly type: string;
  readonly properties: {
    readonly title?: string;
    readonly metrics?: unknown[][];
    readonly alarms?: string[];
  };
}

/** The dashboard body as JSON, each CloudFormation reference flattened to `<LogicalId>` / `<LogicalId.Attr>`. */
function widgetsOf(template: Template): Widget[] {
  const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  const body = (
    dashboards[0]?.Properties as { DashboardBody: { 'Fn::Join': [string, unknown[]] } } | undefined
  )?.DashboardBody;
  if (body === undefined) throw new Error('no dashboard in the template');
  const [separator, parts] = body['Fn::Join'];
  const text = parts
    .map((part) => (typeof part === 'string' ? part : flattenCfnReference(part)))
    .join(separator);
  return (JSON.parse(text) as { widgets: Widget[] }).widgets;
}

function metricsOf(widgets: Widget[], title: string): unknown[][] {
  const widget = widgets.find((w) => w.properties.title === title);
  if (widget?.properties.metrics === undefined) throw new Error(`no graph "${title}" on the dashboard`);
  return widget.properties.metrics;
}

describe('OperationsDashboard', () => {
  const app = createTestApp();
  const stack = new ServingOptimizerStack(app, 'OperationsDashboardTest', {
    env: TEST_ENV,
    includeWorkflows: false,
  });
  const optimization = StateMachine.fromStateMachineArn(stack, 'Optimization', OPTIMIZATION_ARN);
  const asyncInference = StateMachine.fromStateMachineArn(stack, 'AsyncInference', ASYNC_ARN);
  const notifications = new RunNotifications(stack, 'RunNotifications', {
    lambdas: stack,
    optimization,
    asyncInference,
  });
  const asyncNotification = stack.createStepLambda('handle-async-notification');
  const trigger = stack.createStepLambda('start-approved-model-run');
  const operations = new OperationsDashboard(stack, 'Operations', {
    stateMachines: [
      { label: 'Optimization', stateMachine: optimization },
      { label: 'AsyncInference', stateMachine: asyncInference },
    ],
    functions: [notifications.notifyRunSummary, asyncNotification],
    asyncNotificationFunction: asyncNotification,
    approvalTriggerFunction: trigger,
    deadLetterQueues: [notifications.deadLetterQueue],
    alarmTopic: notifications.topic,
  });
  const template = Template.fromStack(stack);
  const widgets = widgetsOf(template);
  const topicId = logicalIdOf(stack, notifications.topic);

  it('graphs each state machine’s executions started, succeeded, failed, timed out and aborted', () => {
    // Act
    const metrics = metricsOf(widgets, 'AsyncInference: executions');

    // Assert
    const sum = (name: string, label: string) => [
      'AWS/States',
      name,
      'StateMachineArn',
      ASYNC_ARN,
      { label, stat: 'Sum' },
    ];
    expect(metrics).toEqual([
      sum('ExecutionsStarted', 'Started'),
      sum('ExecutionsSucceeded', 'Succeeded'),
      sum('ExecutionsFailed', 'Failed'),
      sum('ExecutionsTimedOut', 'Timed out'),
      sum('ExecutionsAborted', 'Aborted'),
    ]);
  });

  it('graphs each state machine’s execution time at p50, p90 and max', () => {
    // Act
    const metrics = metricsOf(widgets, 'Optimization: execution time (ms)');

    // Assert
    const time = (label: string, stat: string) => [
      'AWS/States',
      'ExecutionTime',
      'StateMachineArn',
      OPTIMIZATION_ARN,
      { label, stat },
    ];
    expect(metrics).toEqual([time('p50', 'p50'), time('p90', 'p90'), time('max', 'Maximum')]);
  });

  it('graphs the errors and throttles of the given Lambdas, labelled by step', () => {
    // Prepare
    const notifyId = logicalIdOf(stack, notifications.notifyRunSummary);
    const asyncId = logicalIdOf(stack, asyncNotification);

    // Act
    const errors = metricsOf(widgets, 'Lambda errors');
    const throttles = metricsOf(widgets, 'Lambda throttles');

    // Assert
    expect(errors).toEqual([
      ['AWS/Lambda', 'Errors', 'FunctionName', `<${notifyId}>`, { label: 'notify-run-summary', stat: 'Sum' }],
      [
        'AWS/Lambda',
        'Errors',
        'FunctionName',
        `<${asyncId}>`,
        { label: 'handle-async-notification', stat: 'Sum' },
      ],
    ]);
    expect(throttles.map((metric) => metric[1])).toEqual(['Throttles', 'Throttles']);
  });

  it('graphs the async backlog of every mso- endpoint with SEARCH expressions', () => {
    // Act
    const backlog = metricsOf(widgets, 'Async backlog (project endpoints)');
    const withoutCapacity = metricsOf(
      widgets,
      'Async backlog without capacity (1: requests wait, no instance)',
    );

    // Assert
    const search = (name: string) => [
      {
        label: name,
        expression: `SEARCH('{AWS/SageMaker,EndpointName} MetricName="${name}" EndpointName=mso', 'Maximum', 300)`,
      },
    ];
    expect(backlog).toEqual([search('ApproximateBacklogSize'), search('ApproximateBacklogSizePerInstance')]);
    expect(withoutCapacity).toEqual([search('HasBacklogWithoutCapacity')]);
  });

  it('graphs the async notification outcomes the notification Lambda emits through Powertools', () => {
    // Act
    const metrics = metricsOf(widgets, 'Async notifications');

    // Assert
    const outcome = (name: string) => [
      'ModelServingOptimizer',
      name,
      'service',
      'model-serving-optimizer',
      'step',
      'handle-async-notification',
      { label: name, stat: 'Sum' },
    ];
    expect(metrics).toEqual(
      [
        'AsyncInferenceResumedSuccess',
        'AsyncInferenceResumedFailure',
        'AsyncNotificationDuplicate',
        'AsyncNotificationUnknownInferenceId',
        'AsyncNotificationMalformed',
        'AsyncNotificationTaskGone',
        'AsyncNotificationRefused',
        'AsyncNotificationRetryLater',
      ].map(outcome),
    );
  });

  it('graphs the Model Registry trigger’s outcomes', () => {
    // Act
    const metrics = metricsOf(widgets, 'Model Registry trigger');

    // Assert
    expect(metrics.map((metric) => [metric[1], metric[5]])).toEqual([
      ['ApprovedModelRunStarted', 'start-approved-model-run'],
      ['ApprovedModelRunAlreadyStarted', 'start-approved-model-run'],
      ['ApprovedModelRunIgnored', 'start-approved-model-run'],
    ]);
  });

  it('raises an alarm on one failed or timed-out execution of each state machine, sent to the topic', () => {
    // Prepare
    const alarm = (metricName: string, stateMachineArn: string) => ({
      Namespace: 'AWS/States',
      MetricName: metricName,
      Dimensions: [{ Name: 'StateMachineArn', Value: stateMachineArn }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: topicId }],
    });

    // Assert
    for (const stateMachineArn of [OPTIMIZATION_ARN, ASYNC_ARN]) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', alarm('ExecutionsFailed', stateMachineArn));
      template.hasResourceProperties('AWS::CloudWatch::Alarm', alarm('ExecutionsTimedOut', stateMachineArn));
    }
  });

  it('raises an alarm on a message in a dead-letter queue and on an async notification Lambda error', () => {
    // Assert
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [logicalIdOf(stack, notifications.deadLetterQueue), 'QueueName'] },
        },
      ],
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: topicId }],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalIdOf(stack, asyncNotification) } }],
      Statistic: 'Sum',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: topicId }],
    });
  });

  it('shows every alarm on the dashboard', () => {
    // Act
    const alarmWidget = widgets.find((widget) => widget.type === 'alarm');

    // Assert
    expect(operations.alarms).toHaveLength(6);
    expect(alarmWidget?.properties.alarms).toEqual(
      operations.alarms.map((alarm) => `<${logicalIdOf(stack, alarm)}.Arn>`),
    );
  });

  it('has no unacknowledged AwsSolutions findings', () => {
    // Assert
    expectNoUnacknowledgedNagFindings(stack);
  });
});
