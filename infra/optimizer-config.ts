import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { InvalidRunInputError } from '../handlers/contracts/errors.js';
import { JANITOR_LIMITS } from '../handlers/contracts/janitor-settings.js';
import { parseOrThrow } from '../handlers/contracts/validation.js';
import { ApiLoggingModes } from './constructs/run-api.js';
import { SCHEDULED_WORKFLOWS } from './constructs/run-schedules.js';
import type { ServingOptimizerStackProps } from './stacks/serving-optimizer-stack.js';

/**
 * Deployment settings without code (issue #16): schedules, notification e-mails, the Model
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

const scheduleSchema = z
  .object({
    name: z.string(),
    workflow: z.enum(SCHEDULED_WORKFLOWS),
    expression: z.string().regex(/^(rate|cron|at)\(.+\)$/, {
      message: 'rate(<value> <unit>) or cron(<minutes> <hours> <day> <month> <weekday> <year>)',
    }),
    timeZone: z.string().min(1).optional(),
    enabled: z.boolean().optional(),
    description: z.string().optional(),
    input: z.unknown().optional(),
    inputFile: z.string().min(1).optional(),
  })
  .strict()
  .refine(...exactlyOne('input', 'inputFile'));

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
    schedules: z.array(scheduleSchema).optional(),
    modelApproval: z
      .object({
        modelPackageGroups: z
          .array(z.string().min(1))
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
          .positive({ message: 'a number of hours above 0' })
          .max(JANITOR_LIMITS.maxAgeHours.max, { message: `at most ${JANITOR_LIMITS.maxAgeHours.max} hours` })
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
        `(README, "Configuration without code")`,
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
    const lines = error.issues.map(
      (issue) => `  ${issue.field}: got ${issue.given}, expected ${issue.expected}`,
    );
    throw new InvalidOptimizerConfigError(`${path}: invalid config\n${lines.join('\n')}`);
  }
  const folder = dirname(path);
  const fromFile = (file: string | undefined, inline: unknown, field: string): unknown =>
    file === undefined
      ? inline
      : readJson(isAbsolute(file) ? file : resolve(folder, file), `${path}: ${field}`);
  const { stackName, notificationEmails, schedules, modelApproval, janitor, apiThrottling, apiLogging } =
    config;
  const stackProps: Omit<ServingOptimizerStackProps, 'env'> = {
    ...(notificationEmails === undefined ? {} : { notificationEmails }),
    ...(schedules === undefined
      ? {}
      : {
          schedules: schedules.map(({ inputFile, input, ...schedule }, index) => ({
            ...schedule,
            input: fromFile(inputFile, input, `schedules[${index}].inputFile`),
          })),
        }),
    ...(modelApproval === undefined
      ? {}
      : {
          modelApproval: {
            modelPackageGroups: modelApproval.modelPackageGroups,
            template: fromFile(
              modelApproval.templateFile,
              modelApproval.template,
              'modelApproval.templateFile',
            ) as NonNullable<ServingOptimizerStackProps['modelApproval']>['template'],
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
