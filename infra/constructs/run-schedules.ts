import { Duration } from 'aws-cdk-lib';
import { Role } from 'aws-cdk-lib/aws-iam';
import { Schedule, ScheduleTargetInput, TimeWindow } from 'aws-cdk-lib/aws-scheduler';
import { StepFunctionsStartExecution } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  ARTIFACTS_BUCKET_PLACEHOLDER,
  withArtifactsBucket,
  type InputIssue,
  InvalidRunInputError,
  describeGiven,
  formatFieldPath,
} from '../../core/contracts/index.js';
import {
  createDeadLetterQueue,
  resolveScheduleExpression,
  SCHEDULE_NAME_EXPECTED,
  SCHEDULE_NAME_PATTERN,
  schedulerPrincipal,
} from './schedule-settings.js';
import { parseAsyncRunInput, parseRunInput } from '../../core/planning/index.js';

export const SCHEDULED_WORKFLOWS = ['optimization', 'async-inference'] as const;
export type ScheduledWorkflow = (typeof SCHEDULED_WORKFLOWS)[number];

export interface RunScheduleSettings {
  /**
   * 1 to 64 letters, digits, `-`, `_` or `.` (Scheduler's schedule names): the schedule's construct
   * id, unique in the stack.
   */
  readonly name: string;
  /** The workflow each occurrence starts. */
  readonly workflow: ScheduledWorkflow;
  /**
   * `rate(<value> <unit>)` or `cron(<minutes> <hours> <day> <month> <weekday> <year>)`
   * (https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html).
   */
  readonly expression: string;
  /**
   * IANA time zone of a `cron(...)` schedule, e.g. `Europe/Paris` (daylight saving followed).
   * @default - UTC
   */
  readonly timeZone?: string;
  /**
   * The run input of each execution, as you would paste it in the console (examples/). It is
   * checked at synth with the workflow's run-input schema, so a bad input fails `cdk synth`.
   */
  readonly input: unknown;
  /**
   * A disabled schedule stays deployed, ready to be enabled.
   * @default true
   */
  readonly enabled?: boolean;
  /** @default - the workflow and the expression */
  readonly description?: string;
}

export interface RunSchedulesProps {
  readonly schedules: readonly RunScheduleSettings[];
  readonly optimization: IStateMachine;
  /** Needed by schedules of the `async-inference` workflow. @default - none */
  readonly asyncInference?: IStateMachine;
  /**
   * The stack's artifacts bucket: `s3://your-artifacts-bucket/…`, the examples' placeholder, in a
   * schedule's input becomes `s3://<this bucket>/…` when the schedule is deployed, so an example
   * runs from its schedule after one deploy, with no bucket name copied by hand.
   * @default - inputs are sent as written
   */
  readonly artifactsBucketName?: string;
  /**
   * Where occurrences that could not start an execution after the retries land (e.g. the safety
   * net's queue).
   * @default - a new SSE, TLS-only queue, created when there is at least one schedule
   */
  readonly deadLetterQueue?: IQueue;
}

/**
 * Scheduled runs: one EventBridge Scheduler schedule per setting, whose target starts an
 * execution of the workflow with the schedule's input (Step Functions StartExecution).
 *
 * - Run ids: Scheduler's Step Functions target cannot name the execution, so Step Functions gives
 *   it a generated name (a UUID), which is the run id of a scheduled run (`runs/<uuid>/` in the
 *   artifacts bucket). Find a run by its schedule through the `name` label of its input.
 * - Each workflow's schedules share one role that may start that state machine only (and write to
 *   the dead-letter queue), assumable by this account's default schedule group only.
 * - No flexible time window: a run starts at the time it says, so runs stay comparable.
 */
export class RunSchedules extends Construct {
  /** The schedules by name. */
  readonly schedules: ReadonlyMap<string, Schedule>;
  /** The role of each workflow that has schedules. */
  readonly roles: ReadonlyMap<ScheduledWorkflow, Role>;
  /** Undefined when there is no schedule and no queue was given. */
  readonly deadLetterQueue: IQueue | undefined;

  constructor(scope: Construct, id: string, props: RunSchedulesProps) {
    super(scope, id);
    checkNames(props.schedules);
    const stateMachines: Record<ScheduledWorkflow, IStateMachine | undefined> = {
      optimization: props.optimization,
      'async-inference': props.asyncInference,
    };
    const checked = props.schedules.map((settings) => ({
      settings,
      stateMachine: stateMachineOf(settings, stateMachines),
      expression: resolveScheduleExpression(
        `RunSchedules "${settings.name}"`,
        settings.expression,
        settings.timeZone,
        'cron(0 2 ? * MON-FRI *)',
      ),
    }));
    for (const { settings } of checked) checkRunInput(settings);

    this.deadLetterQueue =
      props.deadLetterQueue ??
      (checked.length === 0
        ? undefined
        : createDeadLetterQueue(this, 'DeadLetters', 'the scheduled runs that could not be started'));

    const roles = new Map<ScheduledWorkflow, Role>();
    const roleOf = (workflow: ScheduledWorkflow): Role => {
      const existing = roles.get(workflow);
      if (existing !== undefined) return existing;
      const role = new Role(this, `${pascalCase(workflow)}StarterRole`, {
        assumedBy: schedulerPrincipal(this),
        description: `Lets EventBridge Scheduler start executions of the ${workflow} workflow, and nothing else`,
      });
      roles.set(workflow, role);
      return role;
    };

    const schedules = new Map<string, Schedule>();
    for (const { settings, stateMachine, expression } of checked) {
      const schedule = new Schedule(this, settings.name, {
        description:
          settings.description ?? `${settings.name}: ${settings.workflow} run on ${settings.expression}`,
        schedule: expression,
        timeWindow: TimeWindow.off(),
        enabled: settings.enabled ?? true,
        target: new StepFunctionsStartExecution(stateMachine, {
          role: roleOf(settings.workflow),
          input: ScheduleTargetInput.fromObject(
            props.artifactsBucketName === undefined
              ? settings.input
              : withArtifactsBucket(settings.input, props.artifactsBucketName),
          ),
          ...(this.deadLetterQueue === undefined ? {} : { deadLetterQueue: this.deadLetterQueue }),
          // StartExecution fails only when throttled or misconfigured: a few retries, and a run
          // that cannot start within the hour goes to the dead-letter queue (its alarm tells)
          // rather than starting hours late in a different load period.
          retryAttempts: 5,
          maxEventAge: Duration.hours(1),
        }),
      });
      schedules.set(settings.name, schedule);
    }
    this.schedules = schedules;
    this.roles = roles;
  }
}

function checkNames(schedules: readonly RunScheduleSettings[]): void {
  const seen = new Set<string>();
  schedules.forEach((settings, index) => {
    if (!SCHEDULE_NAME_PATTERN.test(settings.name)) {
      throw new Error(
        `RunSchedules schedules[${index}].name: got ${JSON.stringify(settings.name)}, expected ${SCHEDULE_NAME_EXPECTED}`,
      );
    }
    if (seen.has(settings.name)) {
      throw new Error(
        `RunSchedules schedules[${index}].name: got "${settings.name}" twice, expected a name no other schedule uses`,
      );
    }
    seen.add(settings.name);
  });
}

function stateMachineOf(
  settings: RunScheduleSettings,
  stateMachines: Record<ScheduledWorkflow, IStateMachine | undefined>,
): IStateMachine {
  if (!(SCHEDULED_WORKFLOWS as readonly string[]).includes(settings.workflow)) {
    throw new Error(
      `RunSchedules "${settings.name}".workflow: got ${JSON.stringify(settings.workflow)}, expected one of ` +
        SCHEDULED_WORKFLOWS.join(', '),
    );
  }
  const stateMachine = stateMachines[settings.workflow];
  if (stateMachine === undefined) {
    throw new Error(
      `RunSchedules "${settings.name}".workflow: got "${settings.workflow}", but the stack has no ` +
        'async-inference state machine (asyncInference prop): deploy that workflow, or schedule the optimization workflow',
    );
  }
  return stateMachine;
}

/**
 * What the workflow's own run-input check finds in a schedule's input, as it would start on AWS
 * (no `file://` URIs): none when it is valid. The config file's check lists them with its own.
 */
export function scheduledRunInputIssues(workflow: ScheduledWorkflow, input: unknown): readonly InputIssue[] {
  try {
    if (workflow === 'optimization') parseRunInput(input);
    else parseAsyncRunInput(input);
    throwOnLocalUris(input);
    return [];
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error.issues;
    throw error;
  }
}

/** The workflow's own run-input check, at synth: the error names the schedule and each bad field. */
function checkRunInput(settings: RunScheduleSettings): void {
  const issues = scheduledRunInputIssues(settings.workflow, settings.input);
  if (issues.length === 0) return;
  const cause = new InvalidRunInputError(issues);
  throw new Error(`RunSchedules "${settings.name}" (${settings.workflow}).input: ${cause.message}`, {
    cause,
  });
}

/**
 * The schemas accept `file:///` URIs for local mode; on AWS the first state refuses them (the
 * Lambdas cannot read a laptop's disk). An input that runs on AWS only is refused at synth instead.
 */
export function throwOnLocalUris(input: unknown): void {
  const issues: InputIssue[] = [];
  const visit = (value: unknown, path: PropertyKey[]): void => {
    if (typeof value === 'string' && value.startsWith('file://')) {
      issues.push({
        field: formatFieldPath(path),
        given: describeGiven(value),
        expected: 'an s3:// URI (file:// works in local mode only, and this run starts on AWS)',
      });
    } else if (Array.isArray(value)) {
      value.forEach((item: unknown, index) => {
        visit(item, [...path, index]);
      });
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
    }
  };
  visit(input, []);
  if (issues.length > 0) throw new InvalidRunInputError(issues);
}

/** `async-inference` → `AsyncInference`. */
function pascalCase(kebab: string): string {
  return kebab
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

export { ARTIFACTS_BUCKET_PLACEHOLDER, withArtifactsBucket };
