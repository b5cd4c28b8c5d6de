import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import {
  type InputIssue,
  InvalidRunInputError,
  JANITOR_LIMITS,
  parseOrThrow,
  MODEL_PACKAGE_GROUP_NAME,
} from '../core/contracts/index.js';
import {
  MODEL_PACKAGE_GROUP_EXPECTED,
  modelApprovalTemplateIssues,
  ApiLoggingModes,
  SCHEDULED_WORKFLOWS,
  scheduledRunInputIssues,
  janitorMaxAgeHoursRange,
  isScheduleExpression,
  isTimeZone,
  SCHEDULE_EXPRESSION_EXPECTED,
  SCHEDULE_NAME_EXPECTED,
  SCHEDULE_NAME_PATTERN,
  TIME_ZONE_EXPECTED,
} from './constructs/index.js';
import type { ServingOptimizerStackProps } from './stacks/index.js';

/**
 * Deployment settings without code: schedules, notification e-mails, the Model
 * Registry trigger, the stack name, the janitor's cadence and the run API's throttling and logging,
 * read from a JSON file at synth and checked with one zod schema, so a mistake fails `cdk synth`
 * naming the field. The file is `optimizer.config.json` in the folder `cdk` runs from, or the path
 * of the CDK context value `configFile` (`-c configFile=…` or `cdk.json`); without either, the stack
 * deploys with its defaults. Run inputs may sit in their own files (`inputFile`, `templateFile`,
 * relative to the config file), so a schedule can start `examples/cpu-sweep.json` as it is.
 */

/** CDK context key of the config file's path. */
export const CONFIG_FILE_CONTEXT_KEY = 'configFile';
/** The file read when the context names none, in the folder `cdk` runs from. */
export const DEFAULT_CONFIG_FILE = 'optimizer.config.json';

/**
 * "A stack name can contain only alphanumeric characters (case-sensitive) and hyphens. It must
 * start with an alphabetic character and can't be longer than 128 characters" (AWS CloudFormation
 * API reference, CreateStack `StackName`).
 */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;

/** A run input (or template) given inline or by file: exactly one of the two. */
function exactlyOne(
  key: string,
  fileKey: string,
): [(value: Readonly<Record<string, unknown>>) => boolean, { message: string; path: PropertyKey[] }] {
  return [
    (value) => (value[key] === undefined) !== (value[fileKey] === undefined),
    {
      message: `exactly one of "${key}" (the document itself) or "${fileKey}" (its path, relative to the config file)`,
      path: [key],
    },
  ];
}

/** Scheduler's expressions (schedule-settings.ts), checked here so the synth fails before any bundling. */
const scheduleExpressionSchema = z
  .string()
  .refine(isScheduleExpression, { message: SCHEDULE_EXPRESSION_EXPECTED });
const timeZoneSchema = z.string().refine(isTimeZone, { message: TIME_ZONE_EXPECTED });

/**
 * A time zone applies to cron expressions only (schedule-settings.ts refuses it with a rate): an
 * issue on `timeZone` when a valid zone comes with a rate expression.
 */
function timeZoneWithCron<Value extends { readonly timeZone?: string | undefined }>(
  expressionOf: (value: Value) => string,
): (value: Value, context: z.RefinementCtx) => void {
  return (value, context) => {
    const { timeZone } = value;
    if (timeZone === undefined || !isTimeZone(timeZone) || expressionOf(value).startsWith('cron(')) return;
    context.addIssue({
      code: 'custom',
      path: ['timeZone'],
      input: timeZone,
      message: 'no time zone with a rate(...) schedule: a time zone applies only to cron(...) expressions',
    });
  };
}

const scheduleSchema = z
  .object({
    name: z.string().regex(SCHEDULE_NAME_PATTERN, { message: SCHEDULE_NAME_EXPECTED }),
    workflow: z.enum(SCHEDULED_WORKFLOWS),
    expression: scheduleExpressionSchema,
    timeZone: timeZoneSchema.optional(),
    enabled: z.boolean().optional(),
    description: z.string().optional(),
    input: z.unknown().optional(),
    inputFile: z.string().min(1).optional(),
  })
  .strict()
  .refine(...exactlyOne('input', 'inputFile'))
  .superRefine(timeZoneWithCron((value: { timeZone?: string; expression: string }) => value.expression));

/** Each schedule's name is its construct id: two schedules cannot share one. */
const schedulesSchema = z.array(scheduleSchema).superRefine((schedules, context) => {
  const first = new Map<string, number>();
  schedules.forEach(({ name }, index) => {
    const earlier = first.get(name);
    if (earlier === undefined) {
      first.set(name, index);
      return;
    }
    context.addIssue({
      code: 'custom',
      path: [index, 'name'],
      input: name,
      message: `a name no other schedule uses (schedules[${earlier}] is named so too)`,
    });
  });
});

/** The janitor's age range, from the one place that defines it (SafetyNet). */
const JANITOR_AGE = janitorMaxAgeHoursRange();
const JANITOR_AGE_EXPECTED =
  `a number of hours from ${JANITOR_AGE.minimum} (more than the longest execution timeout) ` +
  `to ${JANITOR_AGE.maximum} (90 days)`;

/** A janitor schedule within JANITOR_LIMITS.intervalMinutes: `rate(<n> minutes)`. */
function isJanitorRate(expression: string): boolean {
  const minutes = /^rate\((\d+) minutes\)$/.exec(expression)?.[1];
  const { min, max } = JANITOR_LIMITS.intervalMinutes;
  return minutes !== undefined && Number(minutes) >= min && Number(minutes) <= max;
}

export const optimizerConfigSchema = z
  .object({
    stackName: z
      .string()
      .regex(STACK_NAME, {
        message: 'a letter, then letters, digits or "-", 128 characters at most (CloudFormation stack names)',
      })
      .optional(),
    notificationEmails: z.array(z.email({ message: 'an e-mail address' })).optional(),
    schedules: schedulesSchema.optional(),
    modelApproval: z
      .object({
        modelPackageGroups: z
          .array(z.string().regex(MODEL_PACKAGE_GROUP_NAME, { message: MODEL_PACKAGE_GROUP_EXPECTED }))
          .min(1, { message: 'at least one model package group' }),
        template: z.unknown().optional(),
        templateFile: z.string().min(1).optional(),
      })
      .strict()
      .refine(...exactlyOne('template', 'templateFile'))
      .optional(),
    // Ranges: JANITOR_LIMITS; the safety net checks what depends on the stack (the minimum age).
    janitor: z
      .object({
        maxAgeHours: z
          .number()
          .min(JANITOR_AGE.minimum, { message: JANITOR_AGE_EXPECTED })
          .max(JANITOR_AGE.maximum, { message: JANITOR_AGE_EXPECTED })
          .optional(),
        graceMinutes: z
          .number()
          .min(JANITOR_LIMITS.graceMinutes.min, {
            message: `a number of minutes from ${JANITOR_LIMITS.graceMinutes.min} to ${JANITOR_LIMITS.graceMinutes.max}`,
          })
          .max(JANITOR_LIMITS.graceMinutes.max, {
            message: `a number of minutes from ${JANITOR_LIMITS.graceMinutes.min} to ${JANITOR_LIMITS.graceMinutes.max}`,
          })
          .optional(),
        schedule: z
          .string()
          .refine(isJanitorRate, {
            message: `rate(<n> minutes), from rate(${JANITOR_LIMITS.intervalMinutes.min} minutes) to rate(${JANITOR_LIMITS.intervalMinutes.max} minutes)`,
          })
          .optional(),
        enabled: z.boolean().optional(),
      })
      .strict()
      .optional(),
    apiThrottling: z
      .object({
        rateLimit: z.number().positive({ message: 'a number of requests per second above 0' }),
        burstLimit: z.int().min(1, { message: 'a whole number of requests, at least 1' }),
      })
      .strict()
      .optional(),
    apiLogging: z.enum(Object.values(ApiLoggingModes) as [string, ...string[]]).optional(),
  })
  .strict();
export type OptimizerConfigDocument = z.input<typeof optimizerConfigSchema>;

/** What the app builds from a config: the stack's name and props. */
export interface OptimizerConfig {
  readonly stackName?: string;
  readonly stackProps: Omit<ServingOptimizerStackProps, 'env'>;
}

/** The config file refused: every problem, each naming the field, what was given and what was expected. */
export class InvalidOptimizerConfigError extends Error {
  override readonly name = 'InvalidOptimizerConfigError';
}

/**
 * What to print when the synth fails on a mistake of the user's, not of the code: the config file
 * refused, or a run input it holds (a schedule's, the trigger's template) refused by the workflow's
 * schema, which the constructs rethrow naming the schedule. `undefined` for any other error, whose
 * stack trace is then worth reading.
 */
export function describeConfigProblem(error: unknown): string | undefined {
  if (error instanceof InvalidOptimizerConfigError) return error.message;
  if (error instanceof Error && error.cause instanceof InvalidRunInputError) return error.message;
  return undefined;
}

/**
 * Reads and checks the config file: `path` from the `configFile` context value (which must exist),
 * else `optimizer.config.json` when present, else the defaults.
 */
export function loadOptimizerConfig(contextPath: unknown, cwd: string = process.cwd()): OptimizerConfig {
  if (contextPath !== undefined && (typeof contextPath !== 'string' || contextPath === '')) {
    throw new InvalidOptimizerConfigError(
      `CDK context ${CONFIG_FILE_CONTEXT_KEY}: got ${JSON.stringify(contextPath)}, expected the path of a JSON config file`,
    );
  }
  const path = resolve(cwd, contextPath ?? DEFAULT_CONFIG_FILE);
  if (!existsSync(path)) {
    if (contextPath === undefined) return { stackProps: {} };
    throw new InvalidOptimizerConfigError(
      `CDK context ${CONFIG_FILE_CONTEXT_KEY}: got ${path}, which does not exist; expected the config file ` +
        `(docs/starting-runs.md, "Configuration without code")`,
    );
  }
  return parseOptimizerConfig(readJson(path, path), path);
}

/** Checks a config document; `path` is where it came from (files it names are relative to it). */
export function parseOptimizerConfig(document: unknown, path: string): OptimizerConfig {
  let config: z.output<typeof optimizerConfigSchema>;
  try {
    config = parseOrThrow(optimizerConfigSchema, document);
  } catch (error) {
    if (!(error instanceof InvalidRunInputError)) throw error;
    throw invalidConfig(path, error.issues);
  }
  const folder = dirname(path);
  const fromFile = (file: string | undefined, inline: unknown, field: string): unknown =>
    file === undefined
      ? inline
      : readJson(isAbsolute(file) ? file : resolve(folder, file), `${path}: ${field}`);
  const { stackName, notificationEmails, schedules, modelApproval, janitor, apiThrottling, apiLogging } =
    config;
  const schedulesRead = schedules?.map(({ inputFile, input, ...schedule }, index) => ({
    ...schedule,
    input: fromFile(inputFile, input, `schedules[${index}].inputFile`),
  }));
  // Each schedule's run input, checked by its workflow's schema here rather than by the construct:
  // the synth then fails before any Lambda is bundled, with every issue of the file in one list.
  const inputIssues = (schedulesRead ?? []).flatMap(({ workflow, input }, index) => {
    const inputFile = schedules?.[index]?.inputFile;
    const where = `schedules[${index}].${inputFile === undefined ? 'input' : `inputFile (${inputFile})`}`;
    return scheduledRunInputIssues(workflow, input).map((issue) => ({
      ...issue,
      field: `${where}.${issue.field}`,
    }));
  });
  // The trigger's template likewise, as its construct would check it, in the same list.
  const templateRead =
    modelApproval === undefined
      ? undefined
      : fromFile(modelApproval.templateFile, modelApproval.template, 'modelApproval.templateFile');
  const templateWhere =
    modelApproval?.templateFile === undefined
      ? 'modelApproval'
      : `modelApproval.templateFile (${modelApproval.templateFile})`;
  const templateIssues =
    modelApproval === undefined
      ? []
      : modelApprovalTemplateIssues(templateRead).map((issue) => ({
          ...issue,
          field:
            modelApproval.templateFile === undefined
              ? `${templateWhere}.${issue.field}`
              : `${templateWhere}${issue.field.replace(/^template/, '')}`,
        }));
  const fileIssues = [...inputIssues, ...templateIssues];
  if (fileIssues.length > 0) throw invalidConfig(path, fileIssues);
  const stackProps: Omit<ServingOptimizerStackProps, 'env'> = {
    ...(notificationEmails === undefined ? {} : { notificationEmails }),
    ...(schedulesRead === undefined ? {} : { schedules: schedulesRead }),
    ...(modelApproval === undefined
      ? {}
      : {
          modelApproval: {
            modelPackageGroups: modelApproval.modelPackageGroups,
            template: templateRead as NonNullable<ServingOptimizerStackProps['modelApproval']>['template'],
          },
        }),
    ...(janitor === undefined ? {} : { janitor }),
    ...(apiThrottling === undefined ? {} : { apiThrottling }),
    ...(apiLogging === undefined
      ? {}
      : { apiLogging: apiLogging as NonNullable<ServingOptimizerStackProps['apiLogging']> }),
  };
  return { ...(stackName === undefined ? {} : { stackName }), stackProps };
}

function invalidConfig(path: string, issues: readonly InputIssue[]): InvalidOptimizerConfigError {
  const lines = issues.map((issue) => `  ${issue.field}: got ${issue.given}, expected ${issue.expected}`);
  return new InvalidOptimizerConfigError(`${path}: invalid config\n${lines.join('\n')}`);
}

function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InvalidOptimizerConfigError(
      `${what}: cannot read ${path} (${error instanceof Error ? error.message : String(error)}), expected a JSON file`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidOptimizerConfigError(
      `${what}: ${path} is not JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}
