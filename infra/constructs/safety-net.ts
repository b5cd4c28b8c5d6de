import { StepVariables, RunEventVariables } from '../../lambdas/index.js';
import { Duration, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SfnStateMachine } from 'aws-cdk-lib/aws-events-targets';
import { type IRole, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import {
  CfnSchedule,
  Schedule,
  type ScheduleExpression,
  ScheduleTargetInput,
  TimeWindow,
} from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  EXECUTION_STATUS_CHANGE,
  FAILURE_STATUSES,
  ASYNC_RUN_TIMEOUT_HOURS,
  OPTIMIZATION_RUN_TIMEOUT_HOURS,
  JANITOR_LIMITS,
  janitorBoundMinutes,
  JanitorMetrics,
  ASYNC_INFERENCE_STEPS,
  SUPPORT_FUNCTIONS,
  OPTIMIZATION_STEPS,
} from '../../core/contracts/index.js';
import { FAILED_RUN_CLEAN_UP_STEP_TIMEOUT, FailedRunCleanUpWorkflow } from '../../workflows/index.js';
import { acknowledgeGuardRule, acknowledgeWildcardResource } from '../nag/index.js';
import type { StepLambdaFactory } from './step-lambda-factory.js';
import { PROJECT_METRICS_NAMESPACE, PROJECT_SERVICE_NAME, type ProjectFunction } from './project-function.js';
import { SageMakerGrants } from './sagemaker-grants.js';
import { executionsOf } from './run-notifications.js';
import { createDeadLetterQueue, resolveScheduleExpression } from './schedule-settings.js';

/**
 * The step Lambdas that create SageMaker resources (models, endpoint configs, endpoints, compilation
 * jobs, scalable targets). Nothing says that aborting or timing out an execution stops a Lambda
 * invocation already dispatched (the StopExecution API reference names no effect on running
 * tasks), while a function's `Timeout` is "the amount of time that Lambda allows a function to run
 * before stopping it" (Lambda API reference, FunctionConfiguration): so "Clean up failed run" waits
 * the longest of their timeouts (plus `IN_FLIGHT_MARGIN`) before it lists the run's resources.
 */
export const RESOURCE_CREATING_STEPS = [
  OPTIMIZATION_STEPS.deployCandidate,
  OPTIMIZATION_STEPS.startCompilation,
  ASYNC_INFERENCE_STEPS.deployAsyncEndpoint,
  ASYNC_INFERENCE_STEPS.checkAsyncEndpoint,
] as const;

/** ProjectFunction's default timeout: the wait when no creating step is given. */
const DEFAULT_STEP_TIMEOUT = Duration.seconds(30);

/** Past a creating Lambda's timeout: SageMaker's List* calls see a new endpoint within seconds. */
export const IN_FLIGHT_MARGIN = Duration.seconds(60);

/** Every 15 minutes (JANITOR_LIMITS.intervalMinutes): see JANITOR_LIMITS for the bound it holds. */
export const DEFAULT_JANITOR_SCHEDULE = `rate(${JANITOR_LIMITS.intervalMinutes.default} minutes)`;

export interface JanitorSettings {
  /**
   * A resource whose run cannot be found (no execution of that name in the watched state machines:
   * not visible yet, or another deployment's run), or that has no run id, is swept only once older
   * than this. It must exceed the longest execution timeout of the state machines watched, so that
   * age alone never sweeps what a running execution uses. Resources of runs that have ended do not
   * wait for it: they go after `graceMinutes`.
   * @default - the longest execution timeout in hours, rounded up, plus one (49 for the default
   * 48 h of the async-inference workflow; 25 when only the optimization workflow is watched)
   */
  readonly maxAgeHours?: number;
  /**
   * Minutes after a run's execution ended before the janitor sweeps its resources, from 5 to 30
   * (JANITOR_LIMITS.graceMinutes), and at least the failed-run clean-up's in-flight wait.
   * @default 15
   */
  readonly graceMinutes?: number;
  /**
   * An EventBridge Scheduler rate expression, from `rate(5 minutes)` to `rate(20 minutes)`
   * (JANITOR_LIMITS.intervalMinutes; https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html):
   * with the grace and the sweep's timeout, it bounds how long a deletable endpoint outlives its run.
   * @default 'rate(15 minutes)'
   */
  readonly schedule?: string;
  /**
   * Whether the schedule runs. A disabled schedule stays deployed, ready to be enabled.
   * @default true
   */
  readonly enabled?: boolean;
}

export interface SafetyNetProps {
  /** Creates the construct's Lambdas (the stack). */
  readonly lambdas: StepLambdaFactory;
  /** The optimization state machine whose failed, timed-out and aborted executions are cleaned up. */
  readonly stateMachine: IStateMachine;
  /**
   * The async-inference state machine, whose failed runs are cleaned up the same way (with their
   * endpoint's autoscaling deregistered). @default - none
   */
  readonly asyncStateMachine?: IStateMachine;
  /**
   * The optimization state machine's execution timeout: the janitor's minimum age derives from the
   * longest of the watched state machines' timeouts.
   * @default - 24 hours, the optimization workflow's default (core/contracts/run-timeouts.ts)
   */
  readonly executionTimeout?: Duration;
  /**
   * The async-inference state machine's execution timeout, when `asyncStateMachine` is given.
   * @default - 48 hours, the async-inference workflow's default (core/contracts/run-timeouts.ts)
   */
  readonly asyncExecutionTimeout?: Duration;
  /** @default - see JanitorSettings */
  readonly janitor?: JanitorSettings;
  /**
   * The step Lambdas that create SageMaker resources (`RESOURCE_CREATING_STEPS`): the failed-run
   * clean-up starts only after the longest of their timeouts, plus a margin.
   * @default - none: ProjectFunction's default timeout (30 s) is assumed
   */
  readonly resourceCreatingSteps?: readonly ProjectFunction[];
}

/**
 * The second layer of clean-up, for what the workflow's own clean-up state cannot reach:
 *
 * - an EventBridge rule starts the "Clean up failed run" state machine for every execution of the
 *   watched workflows that ends FAILED, TIMED_OUT or ABORTED: it waits out in-flight step Lambdas,
 *   then the `clean-up-failed-run` Lambda deletes that run's resources (unless a redrive made it
 *   live again), retried with backoff for about two hours while something is left or the listing
 *   is throttled, and the execution fails ("Clean-up gave up", alarmed by the operations
 *   dashboard) with the account of what is left;
 * - an EventBridge Scheduler schedule runs the `janitor` Lambda every 15 minutes, which deletes the
 *   project's endpoints, endpoint configs and models whose run has been over for the grace (15
 *   minutes), whatever left them behind, and those whose run cannot be found past a maximum age;
 *   an alarm (`janitorAlarm`) counts what a sweep could not delete. A deletable endpoint outlives
 *   its run by at most an hour (JANITOR_LIMITS).
 *
 * Events neither target could take after its retries land in one encrypted, TLS-only queue.
 */
export class SafetyNet extends Construct {
  readonly cleanUpFailedRun: ProjectFunction;
  /** "Clean up failed run": the rule's target. */
  readonly failedRunCleanUp: FailedRunCleanUpWorkflow;
  readonly failedRunRule: Rule;
  readonly janitor: ProjectFunction;
  readonly janitorSchedule: Schedule;
  /** The janitor's role on the schedule, created by the Scheduler target (trusts the default group only). */
  readonly janitorScheduleRole: IRole;
  readonly deadLetterQueue: Queue;
  readonly maxAgeHours: number;
  readonly graceMinutes: number;
  /** Minutes between sweeps, from the schedule. */
  readonly intervalMinutes: number;
  /** The longest a deletable endpoint outlives its run, in minutes: grace + interval + sweep timeout. */
  readonly boundMinutes: number;
  /**
   * A sweep left stale resources (a delete refused, a run's status unreadable) or failed before it
   * could decide (its listing throttled). It has no action: the stack sends it to its alarm topic.
   */
  readonly janitorAlarm: Alarm;

  constructor(scope: Construct, id: string, props: SafetyNetProps) {
    super(scope, id);
    const settings = props.janitor ?? {};
    const timeouts = [
      props.executionTimeout ?? Duration.hours(OPTIMIZATION_RUN_TIMEOUT_HOURS),
      ...(props.asyncStateMachine === undefined
        ? []
        : [props.asyncExecutionTimeout ?? Duration.hours(ASYNC_RUN_TIMEOUT_HOURS)]),
    ];
    this.maxAgeHours = resolveMaxAgeHours(settings.maxAgeHours, longest(timeouts));
    const watched = [
      props.stateMachine,
      ...(props.asyncStateMachine === undefined ? [] : [props.asyncStateMachine]),
    ];
    const { expression: schedule, intervalMinutes } = resolveSchedule(
      settings.schedule ?? DEFAULT_JANITOR_SCHEDULE,
    );
    this.intervalMinutes = intervalMinutes;
    const sagemaker = new SageMakerGrants(Stack.of(this));

    this.deadLetterQueue = createDeadLetterQueue(
      this,
      'DeadLetters',
      'the events the stack’s rules and schedules (failed-run clean-up, janitor, run schedules, approval trigger, run summaries) could not deliver',
    );

    this.cleanUpFailedRun = props.lambdas.createStepLambda(SUPPORT_FUNCTIONS.cleanUpFailedRun, {
      timeout: FAILED_RUN_CLEAN_UP_STEP_TIMEOUT,
      description: 'Deletes the resources of a run that ended FAILED, TIMED_OUT or ABORTED',
    });
    sagemaker.allowCleanUp(this.cleanUpFailedRun);
    sagemaker.allowDeregisterScaling(this.cleanUpFailedRun);
    // Every attempt reads the execution: a run redriven since (RUNNING, PENDING_REDRIVE) is left
    // alone, and so is one that ended in "No recommendation" (it has cleaned up).
    for (const stateMachine of watched) {
      this.allowDescribeExecutions(
        this.cleanUpFailedRun,
        stateMachine,
        'The failed execution is named by the event at run time; the grant covers the executions of one project state machine',
      );
    }
    this.failedRunCleanUp = new FailedRunCleanUpWorkflow(this, 'FailedRunCleanUp', {
      cleanUpFailedRun: this.cleanUpFailedRun,
      inFlightWait: inFlightWait(props.resourceCreatingSteps ?? []),
    });
    this.graceMinutes = resolveGraceMinutes(settings.graceMinutes, this.failedRunCleanUp.inFlightWait);
    // Within JANITOR_LIMITS.boundMinutes by the ranges of both settings.
    this.boundMinutes = janitorBoundMinutes({ graceMinutes: this.graceMinutes, intervalMinutes });
    this.acknowledgeStateMachineGrants();
    this.failedRunRule = new Rule(this, 'FailedRunRule', {
      description:
        'Executions that end FAILED, TIMED_OUT or ABORTED → the "Clean up failed run" state machine',
      eventPattern: {
        source: ['aws.states'],
        detailType: [EXECUTION_STATUS_CHANGE],
        detail: {
          status: [...FAILURE_STATUSES],
          stateMachineArn: watched.map((stateMachine) => stateMachine.stateMachineArn),
        },
      },
      targets: [
        // StartExecution with the event as input, through a role CDK creates (states:StartExecution
        // on this state machine only). An EventBridge target cannot name the execution: the PutTargets
        // Target has parameters for ECS, Batch, SQS, SageMaker pipelines and others, none for Step
        // Functions (EventBridge API reference, "Target"). Executions get generated names; the run
        // id is the input's detail.name, and a duplicate event only repeats an idempotent clean-up.
        // Delivery retries (throttled StartExecution) at the EventBridge maxima, 185 attempts over
        // 24 h (EventBridge user guide, "Retrying event delivery"), then the alarmed dead-letter queue.
        new SfnStateMachine(this.failedRunCleanUp.stateMachine, {
          deadLetterQueue: this.deadLetterQueue,
          retryAttempts: 185,
          maxEventAge: Duration.hours(24),
        }),
      ],
    });

    this.janitor = props.lambdas.createStepLambda(SUPPORT_FUNCTIONS.janitor, {
      // Listing, ListTags and Describe run one call at a time against a throttled control plane.
      timeout: Duration.minutes(JANITOR_LIMITS.sweepTimeoutMinutes),
      description: 'Deletes the project’s endpoints, endpoint configs and models whose run is over',
      environment: {
        [StepVariables.janitorMaxAgeHours]: String(this.maxAgeHours),
        [StepVariables.janitorGraceMinutes]: String(this.graceMinutes),
        // The janitor keeps whatever belongs to a run still running in either state machine.
        [RunEventVariables.optimizationStateMachineArn]: props.stateMachine.stateMachineArn,
        ...(props.asyncStateMachine === undefined
          ? {}
          : { [RunEventVariables.asyncInferenceStateMachineArn]: props.asyncStateMachine.stateMachineArn }),
      },
    });
    sagemaker.allowSweep(this.janitor);
    for (const stateMachine of watched) {
      this.allowDescribeExecutions(
        this.janitor,
        stateMachine,
        'Run ids are execution names read from resource tags at sweep time; the grant covers the executions of one project state machine',
      );
    }
    this.janitorSchedule = new Schedule(this, 'JanitorSchedule', {
      description:
        `Janitor: deletes project resources ${this.graceMinutes} minutes after their run ended, or past ` +
        `${this.maxAgeHours} hours when their run cannot be found`,
      schedule,
      timeWindow: TimeWindow.off(),
      enabled: settings.enabled ?? true,
      target: new LambdaInvoke(this.janitor, {
        input: ScheduleTargetInput.fromObject({}),
        deadLetterQueue: this.deadLetterQueue,
        // A missed sweep is retried by the next one: no point retrying past the next one.
        retryAttempts: 3,
        maxEventAge: Duration.minutes(intervalMinutes),
      }),
    });
    this.janitorScheduleRole = roleOfSchedule(this.janitorSchedule);
    acknowledgeWildcardResource(
      this.janitorScheduleRole,
      `${this.janitor.functionArn}:*`,
      'CDK grants the schedule invoke on the janitor and its versions/aliases; it is the project’s own function',
    );
    this.janitorAlarm = janitorAlarm(this, this.janitor);
  }

  /** The wildcards CDK writes into the clean-up state machine's role, each with why it is acceptable. */
  private acknowledgeStateMachineGrants(): void {
    const { stateMachine } = this.failedRunCleanUp;
    acknowledgeWildcardResource(
      stateMachine.role,
      `${this.cleanUpFailedRun.functionArn}:*`,
      'CDK grants invoke on the clean-up Lambda and its versions/aliases; it is the project’s own function',
    );
    acknowledgeWildcardResource(
      stateMachine.role,
      '*',
      'X-Ray PutTraceSegments/GetSampling* and CloudWatch Logs delivery actions support no resource-level scoping',
    );
    const logs = this.failedRunCleanUp.node.tryFindChild('ExecutionLogs');
    if (logs !== undefined) {
      acknowledgeGuardRule(
        logs,
        'cloudwatch_log_group_retention_period_check',
        'Execution logs (errors, without execution data) serve debugging of recent clean-ups; the ' +
          'lasting record of what was left is the failed execution’s cause and its alarm.',
      );
    }
  }

  /**
   * DescribeExecution on one state machine's executions, nothing else: the janitor asks whether a
   * run is still running (`arn:…:execution:<state machine name>:<run id>`; DescribeExecution takes
   * the execution ARN as its resource, Service Authorization Reference for Step Functions).
   */
  private allowDescribeExecutions(fn: ProjectFunction, stateMachine: IStateMachine, reason: string): void {
    const executions = executionsOf(stateMachine);
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['states:DescribeExecution'], resources: [executions] }),
    );
    acknowledgeWildcardResource(fn.serviceRole, executions, reason);
  }
}

/** The longest timeout of the steps that create resources, plus `IN_FLIGHT_MARGIN`. */
export function inFlightWait(steps: readonly ProjectFunction[]): Duration {
  const timeouts = steps.map((step) => step.timeout ?? DEFAULT_STEP_TIMEOUT);
  return longest([DEFAULT_STEP_TIMEOUT, ...timeouts]).plus(IN_FLIGHT_MARGIN);
}

/** The longest of the watched state machines' execution timeouts. */
function longest(timeouts: readonly Duration[]): Duration {
  return timeouts.reduce((a, b) =>
    b.toSeconds({ integral: false }) > a.toSeconds({ integral: false }) ? b : a,
  );
}

/**
 * The range of `janitor.maxAgeHours`, the one place it is defined (the construct and the config
 * file's check read it): above the longest execution timeout of the watched state machines, and at
 * most the janitor's own limit. `executionTimeout` defaults to the stack's (both workflows, at
 * their default timeouts).
 */
export function janitorMaxAgeHoursRange(
  executionTimeout: Duration = Duration.hours(
    Math.max(OPTIMIZATION_RUN_TIMEOUT_HOURS, ASYNC_RUN_TIMEOUT_HOURS),
  ),
): { readonly minimum: number; readonly maximum: number } {
  return {
    minimum: Math.ceil(executionTimeout.toHours({ integral: false })) + 1,
    maximum: JANITOR_LIMITS.maxAgeHours.max,
  };
}

/** The janitor's minimum age, checked against the longest execution timeout; see JanitorSettings.maxAgeHours. */
export function resolveMaxAgeHours(maxAgeHours: number | undefined, executionTimeout: Duration): number {
  const { minimum, maximum: limit } = janitorMaxAgeHoursRange(executionTimeout);
  const value = maxAgeHours ?? minimum;
  if (!Number.isFinite(value) || value < minimum || value > limit) {
    throw new Error(
      `SafetyNet janitor.maxAgeHours: got ${value}, expected a number of hours from ${minimum} to ` +
        `${limit}: more than the longest execution timeout of the watched state ` +
        `machines (${executionTimeout.toHumanString()}), so a running execution's endpoints are never ` +
        'swept by age, and at most 90 days',
    );
  }
  return value;
}

/** The janitor's grace, within JANITOR_LIMITS and never shorter than the in-flight wait. */
export function resolveGraceMinutes(graceMinutes: number | undefined, inFlight: Duration): number {
  const { min, max } = JANITOR_LIMITS.graceMinutes;
  const minimum = Math.max(min, Math.ceil(inFlight.toMinutes({ integral: false })));
  const value = graceMinutes ?? Math.max(JANITOR_LIMITS.graceMinutes.default, minimum);
  if (!Number.isFinite(value) || value < minimum || value > max) {
    throw new Error(
      `SafetyNet janitor.graceMinutes: got ${value}, expected a number of minutes from ${minimum} to ${max}: ` +
        `at least ${min} and the in-flight wait (${inFlight.toHumanString()}: a step that creates resources may ` +
        `still be running after its execution ended), and at most ${max}, so that a deletable endpoint ` +
        `outlives its run by at most ${JANITOR_LIMITS.boundMinutes} minutes`,
    );
  }
  return value;
}

const MINUTES_PER_UNIT: Readonly<Record<string, number>> = {
  minute: 1,
  minutes: 1,
  hour: 60,
  hours: 60,
  day: 1440,
  days: 1440,
};

/**
 * The janitor's schedule, checked at synth: a `rate(...)` expression within
 * JANITOR_LIMITS.intervalMinutes. A cron expression has no single interval to check the bound with.
 */
export function resolveSchedule(expression: string): {
  readonly expression: ScheduleExpression;
  readonly intervalMinutes: number;
} {
  const checked = resolveScheduleExpression(
    'SafetyNet janitor',
    expression,
    undefined,
    DEFAULT_JANITOR_SCHEDULE,
  );
  const { min, max } = JANITOR_LIMITS.intervalMinutes;
  const match = /^rate\((\d+) (minutes?|hours?|days?)\)$/.exec(expression);
  const intervalMinutes =
    match === null ? undefined : Number(match[1]) * (MINUTES_PER_UNIT[match[2] ?? ''] ?? NaN);
  if (intervalMinutes === undefined || !(intervalMinutes >= min && intervalMinutes <= max)) {
    throw new Error(
      `SafetyNet janitor.schedule: got "${expression}", expected a rate from "rate(${min} minutes)" to ` +
        `"rate(${max} minutes)": with the grace and the sweep's ${JANITOR_LIMITS.sweepTimeoutMinutes}-minute ` +
        `timeout, the interval bounds how long a deletable endpoint outlives its run ` +
        `(${JANITOR_LIMITS.boundMinutes} minutes at most)`,
    );
  }
  return { expression: checked, intervalMinutes };
}

/** How often the janitor alarm looks: at least three sweeps fall in each period. */
const JANITOR_ALARM_PERIOD = Duration.hours(1);

/**
 * The alarm on `StaleResourcesNotDeleted` (core/operations/janitor.ts): any stale resource a
 * sweep could not delete or decide on, or a sweep that failed before it could, within the hour. It
 * stays in ALARM while every hour has such a sweep, and missing data (a disabled schedule) is not
 * breaching.
 */
function janitorAlarm(scope: Construct, janitor: ProjectFunction): Alarm {
  return new Alarm(scope, 'JanitorNotDeletedAlarm', {
    alarmDescription:
      'Janitor: a sweep could not delete a stale project resource (a delete refused), could not read its ' +
      'run’s status, or failed before deciding (throttled listing). The janitor’s log lists each one with ' +
      'the reason; the next sweeps retry.',
    metric: new Metric({
      namespace: PROJECT_METRICS_NAMESPACE,
      metricName: JanitorMetrics.notDeleted,
      dimensionsMap: { service: PROJECT_SERVICE_NAME, step: janitor.stepName },
      statistic: 'Sum',
      period: JANITOR_ALARM_PERIOD,
    }),
    threshold: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

/**
 * The role the Scheduler target created for `schedule` (`SchedulerRoleForTarget-<hash>` at stack
 * level): found through the role ARN the schedule's target references.
 */
function roleOfSchedule(schedule: Schedule): IRole {
  const stack = Stack.of(schedule);
  const cfnSchedule = schedule.node.defaultChild;
  if (!(cfnSchedule instanceof CfnSchedule)) {
    throw new Error(`${schedule.node.path}: expected a CfnSchedule as the schedule's default child`);
  }
  const target = stack.resolve(cfnSchedule.target) as { roleArn?: unknown };
  const roleArn = JSON.stringify(target.roleArn);
  const role = stack.node.children.find(
    (child): child is Role =>
      child instanceof Role && JSON.stringify(stack.resolve(child.roleArn)) === roleArn,
  );
  if (role === undefined) {
    throw new Error(`${schedule.node.path}: found no role in the stack with the target's RoleArn ${roleArn}`);
  }
  return role;
}
