import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  Metric,
  SearchExpression,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  ApprovedModelRunMetrics,
  NotificationMetrics,
  RESOURCE_NAME_PREFIX,
} from '../../core/contracts/index.js';
import { PROJECT_METRICS_NAMESPACE, PROJECT_SERVICE_NAME, ProjectFunction } from './project-function.js';

/** Metrics are summed over 5 minutes: AWS/States and AWS/Lambda publish every minute. */
const PERIOD = Duration.minutes(5);

export interface WatchedStateMachine {
  /** How the dashboard and the alarms call it, e.g. `Optimization`. */
  readonly label: string;
  readonly stateMachine: IStateMachine;
  /** @default - "<label>: an execution failed. The run summary on the topic has the error and cause." */
  readonly failedAlarmDescription?: string;
}

export interface OperationsDashboardProps {
  readonly stateMachines: readonly WatchedStateMachine[];
  /** The project's Lambdas: their errors and throttles are graphed. */
  readonly functions: readonly IFunction[];
  /**
   * The async workflow's notification Lambda (`handle-async-notification`): its outcome metrics are
   * graphed and its errors raise an alarm.
   * @default - the async notification widgets and alarm are left out
   */
  readonly asyncNotificationFunction?: ProjectFunction;
  /**
   * The Model Registry trigger's Lambda (`start-approved-model-run`): its outcome metrics are graphed.
   * @default - left out
   */
  readonly approvalTriggerFunction?: ProjectFunction;
  /** Every dead-letter queue of the stack: a message in any raises an alarm. */
  readonly deadLetterQueues: readonly IQueue[];
  /**
   * Where alarms are sent: the run-summary topic (RunNotifications.topic), whose key lets CloudWatch
   * publish. Another topic encrypted with KMS needs the same key-policy statement. Alarm messages
   * carry no `status`/`workflow` attributes: a subscription filtering on them does not get alarms.
   */
  readonly alarmTopic: ITopic;
  /**
   * Endpoints whose async backlog is graphed: those whose name has this token (the project's
   * endpoints all start with `mso-`, RESOURCE_NAME_PREFIX).
   * @default 'mso'
   */
  readonly endpointNameToken?: string;
}

/**
 * The operations dashboard and alarms:
 *
 * - per state machine: executions started, succeeded, failed, timed out and aborted, and the
 *   execution time (p50, p90, max);
 * - the project Lambdas' errors and throttles;
 * - the async backlog of the project's endpoints (a SEARCH expression, so endpoints created by
 *   runs appear without a redeploy);
 * - the async notification Lambda's and the Model Registry trigger's outcome metrics;
 * - alarms, each sent to `alarmTopic`: a failed or timed-out execution, a message in a
 *   dead-letter queue, an error of the async notification Lambda. Missing data is not breaching:
 *   a quiet stack is a healthy one.
 */
export class OperationsDashboard extends Construct {
  readonly dashboard: Dashboard;
  readonly alarms: readonly Alarm[];

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const alarms: Alarm[] = [];
    const alarm = (alarmId: string, description: string, metric: Metric): void => {
      const created = new Alarm(this, alarmId, {
        alarmDescription: description,
        metric,
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(new SnsAction(props.alarmTopic));
      alarms.push(created);
    };

    for (const { label, stateMachine, failedAlarmDescription } of props.stateMachines) {
      alarm(
        `${label}ExecutionsFailed`,
        failedAlarmDescription ??
          `${label}: an execution failed. The run summary on the topic has the error and cause.`,
        stateMachine.metricFailed({ period: PERIOD, statistic: 'Sum' }),
      );
      alarm(
        `${label}ExecutionsTimedOut`,
        `${label}: an execution ran past the state machine's timeout.`,
        stateMachine.metricTimedOut({ period: PERIOD, statistic: 'Sum' }),
      );
    }
    props.deadLetterQueues.forEach((queue, index) => {
      alarm(
        `DeadLetters${index + 1}`,
        `A message is waiting in the dead-letter queue ${queue.node.path}: an event or a run that was ` +
          'not processed (read it, fix the cause, replay it).',
        queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
      );
    });
    if (props.asyncNotificationFunction !== undefined) {
      alarm(
        'AsyncNotificationErrors',
        'The async notification Lambda failed: waiting tasks may not be resumed until its retries succeed.',
        props.asyncNotificationFunction.metricErrors({ period: PERIOD, statistic: 'Sum' }),
      );
    }
    this.alarms = alarms;

    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.days(1),
      widgets: [
        [
          new TextWidget({
            markdown:
              '# Model serving optimizer\nRuns of each workflow, the Lambdas behind them, the async backlog ' +
              'of the project endpoints (`mso-*`) and the alarms sent to the run-summary topic.',
            width: 24,
            height: 2,
          }),
        ],
        ...props.stateMachines.map(executionWidgets),
        lambdaWidgets(props.functions),
        backlogWidgets(props.endpointNameToken ?? RESOURCE_NAME_PREFIX.replace(/-+$/, '')),
        outcomeWidgets(props),
        [new AlarmStatusWidget({ title: 'Alarms', alarms, width: 24 })],
      ],
    });
  }
}

function executionWidgets({ label, stateMachine }: WatchedStateMachine): GraphWidget[] {
  const sum = (name: string) => ({ period: PERIOD, statistic: 'Sum', label: name });
  return [
    new GraphWidget({
      title: `${label}: executions`,
      width: 12,
      left: [
        stateMachine.metricStarted(sum('Started')),
        stateMachine.metricSucceeded(sum('Succeeded')),
        stateMachine.metricFailed(sum('Failed')),
        stateMachine.metricTimedOut(sum('Timed out')),
        stateMachine.metricAborted(sum('Aborted')),
      ],
    }),
    new GraphWidget({
      title: `${label}: execution time (ms)`,
      width: 12,
      left: [
        stateMachine.metricTime({ period: PERIOD, statistic: 'p50', label: 'p50' }),
        stateMachine.metricTime({ period: PERIOD, statistic: 'p90', label: 'p90' }),
        stateMachine.metricTime({ period: PERIOD, statistic: 'Maximum', label: 'max' }),
      ],
    }),
  ];
}

function lambdaWidgets(functions: readonly IFunction[]): GraphWidget[] {
  return [
    new GraphWidget({
      title: 'Lambda errors',
      width: 12,
      left: functions.map((fn) => fn.metricErrors({ period: PERIOD, statistic: 'Sum', label: labelOf(fn) })),
    }),
    new GraphWidget({
      title: 'Lambda throttles',
      width: 12,
      left: functions.map((fn) =>
        fn.metricThrottles({ period: PERIOD, statistic: 'Sum', label: labelOf(fn) }),
      ),
    }),
  ];
}

function backlogWidgets(endpointNameToken: string): GraphWidget[] {
  return [
    new GraphWidget({
      title: 'Async backlog (project endpoints)',
      width: 12,
      left: [
        backlogSearch('ApproximateBacklogSize', endpointNameToken),
        backlogSearch('ApproximateBacklogSizePerInstance', endpointNameToken),
      ],
    }),
    new GraphWidget({
      title: 'Async backlog without capacity (1: requests wait, no instance)',
      width: 12,
      left: [backlogSearch('HasBacklogWithoutCapacity', endpointNameToken)],
    }),
  ];
}

function outcomeWidgets(props: OperationsDashboardProps): GraphWidget[] {
  const widgets: GraphWidget[] = [];
  const notification = props.asyncNotificationFunction;
  if (notification !== undefined) {
    widgets.push(
      new GraphWidget({
        title: 'Async notifications',
        width: 12,
        left: Object.values(NotificationMetrics).map((name) => stepMetric(notification, name)),
      }),
    );
  }
  const trigger = props.approvalTriggerFunction;
  if (trigger !== undefined) {
    widgets.push(
      new GraphWidget({
        title: 'Model Registry trigger',
        width: 12,
        left: Object.values(ApprovedModelRunMetrics).map((name) => stepMetric(trigger, name)),
      }),
    );
  }
  return widgets;
}

/**
 * One time series per endpoint whose name has `token`, so the endpoints runs create appear without
 * a redeploy. CloudWatch search splits names into tokens at non-alphanumerics and matches an
 * unquoted term partially (CloudWatch user guide, "CloudWatch search expression syntax"): `mso`
 * finds `mso-…`. The metrics are SageMaker's for asynchronous endpoints, published with the
 * `EndpointName` dimension (SageMaker developer guide, "Alarms and logs for tracking metrics from
 * asynchronous endpoints").
 */
function backlogSearch(metricName: string, token: string): SearchExpression {
  return new SearchExpression({
    expression:
      `SEARCH('{AWS/SageMaker,EndpointName} MetricName="${metricName}" EndpointName=${token}', ` +
      `'Maximum', ${PERIOD.toSeconds()})`,
    label: metricName,
    period: PERIOD,
  });
}

/** A metric the step's Lambda emits through Powertools: dimensions `service` and `step` (lambdas/step.ts). */
function stepMetric(fn: ProjectFunction, metricName: string): Metric {
  return new Metric({
    namespace: PROJECT_METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: PROJECT_SERVICE_NAME, step: fn.stepName },
    statistic: 'Sum',
    period: PERIOD,
    label: metricName,
  });
}

function labelOf(fn: IFunction): string {
  return fn instanceof ProjectFunction ? fn.stepName : fn.node.id;
}
