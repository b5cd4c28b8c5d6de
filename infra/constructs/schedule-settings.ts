import { Duration, Stack, TimeZone } from 'aws-cdk-lib';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { acknowledgeGuardRule, acknowledgeNagRule } from '../nag/index.js';

/**
 * What the stack's EventBridge Scheduler schedules and event rules share: the check of a schedule
 * expression and its time zone at synth (rather than at deploy), the dead-letter queue of their
 * targets, and the principal a schedule's own role trusts.
 */

/**
 * `rate(<value> <unit>)` or `cron(<6 fields>)`, EventBridge Scheduler's recurring forms
 * (https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html). One-time `at(...)`
 * schedules are not offered: every schedule here recurs.
 */
const RATE_EXPRESSION = /^rate\(\d+ (?:minute|minutes|hour|hours|day|days)\)$/;
const CRON_EXPRESSION = /^cron\(\S+(?: \S+){5}\)$/;

export const SCHEDULE_EXPRESSION_EXPECTED =
  '"rate(<value> <unit>)" or "cron(<minutes> <hours> <day> <month> <weekday> <year>)"';

/** A recurring Scheduler expression this project accepts (see above). */
export function isScheduleExpression(expression: string): boolean {
  return RATE_EXPRESSION.test(expression) || CRON_EXPRESSION.test(expression);
}

/**
 * A schedule's name: "Length Constraints: Minimum length of 1. Maximum length of 64. Pattern:
 * ^[0-9a-zA-Z-_.]+$" (EventBridge Scheduler API reference, CreateSchedule `Name`,
 * https://docs.aws.amazon.com/scheduler/latest/APIReference/API_CreateSchedule.html).
 */
export const SCHEDULE_NAME_PATTERN = /^[0-9a-zA-Z_.-]{1,64}$/;

export const SCHEDULE_NAME_EXPECTED =
  '1 to 64 letters, digits, "-", "_" or "." (EventBridge Scheduler names)';

export const TIME_ZONE_EXPECTED =
  'an IANA time zone name such as "Europe/Paris", "America/New_York" or "UTC"';

/**
 * The IANA time zones Node ships (`Intl.supportedValuesOf('timeZone')`: the canonical names of the
 * IANA database, which Scheduler's `ScheduleExpressionTimezone` takes), and `UTC`, which the list
 * leaves out as an alias. A misspelt zone fails the synth here rather than the deployment.
 */
const TIME_ZONES: ReadonlySet<string> = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);

export function isTimeZone(name: string): boolean {
  return TIME_ZONES.has(name);
}

/**
 * A Scheduler expression, checked at synth: `owner` names the setting in the error (e.g.
 * `SafetyNet janitor`, `RunSchedules "nightly-cpu"`), so a bad value fails `cdk synth` with the
 * setting, what it got and what it expected.
 */
export function resolveScheduleExpression(
  owner: string,
  expression: string,
  timeZone: string | undefined,
  example = 'rate(6 hours)',
): ScheduleExpression {
  if (!isScheduleExpression(expression)) {
    throw new Error(
      `${owner}.schedule: got "${expression}", expected an EventBridge Scheduler expression ` +
        `${SCHEDULE_EXPRESSION_EXPECTED}, e.g. "${example}"`,
    );
  }
  if (timeZone === undefined) return ScheduleExpression.expression(expression, undefined);
  if (!expression.startsWith('cron(')) {
    throw new Error(
      `${owner}.timeZone: got "${timeZone}" with the schedule "${expression}", expected a ` +
        `cron(...) schedule: a time zone applies only to cron expressions`,
    );
  }
  if (!isTimeZone(timeZone)) {
    throw new Error(`${owner}.timeZone: got "${timeZone}", expected ${TIME_ZONE_EXPECTED}`);
  }
  return ScheduleExpression.expression(expression, TimeZone.of(timeZone));
}

/**
 * The dead-letter queue of scheduler targets, event-rule targets and asynchronous Lambda
 * invocations: SSE, TLS only, and the SQS maximum retention, to notice and replay what was lost.
 */
export function createDeadLetterQueue(scope: Construct, id: string, holds: string): Queue {
  const queue = new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    // The SQS maximum (SQS developer guide, quotas).
    retentionPeriod: Duration.days(14),
  });
  acknowledgeNagRule(
    queue,
    'AwsSolutions-SQS3',
    `This queue is itself a dead-letter queue: it holds ${holds}`,
  );
  acknowledgeGuardRule(
    queue,
    'sqs_dlq_check',
    `This queue is itself a dead-letter queue (a redrive of it would have nowhere to go): it holds ${holds}`,
  );
  return queue;
}

/**
 * EventBridge Scheduler, as the principal of a schedule's role: only schedules of this account's
 * default group may assume it (the confused-deputy conditions the Scheduler user guide advises,
 * and those CDK's own scheduler targets write).
 */
export function schedulerPrincipal(scope: Construct): ServicePrincipal {
  const stack = Stack.of(scope);
  return new ServicePrincipal('scheduler.amazonaws.com', {
    conditions: {
      StringEquals: {
        'aws:SourceAccount': stack.account,
        'aws:SourceArn': stack.formatArn({
          service: 'scheduler',
          resource: 'schedule-group',
          resourceName: 'default',
        }),
      },
    },
  });
}
