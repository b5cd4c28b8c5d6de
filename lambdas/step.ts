import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy, { type MiddyfiedHandler } from '@middy/core';
import type { Context } from 'aws-lambda';
import { redactError, redactText, redactValue } from '../core/contracts/index.js';
import type { Logger } from '../core/ports/index.js';
import { getOptionalEnv } from './config.js';

/**
 * The one factory behind every step Lambda: Powertools built once per execution environment,
 * middy around a core function, and errors left exactly as thrown, since Step Functions matches
 * Retry/Catch on the error's `name` (its `errorType`). Service name, namespace and log level come
 * from the POWERTOOLS_* variables the ProjectFunction wrapper sets.
 */

/** `STEP_NAME` is set by the ProjectFunction wrapper; it tags every log line and metric. */
const stepName = getOptionalEnv('STEP_NAME') ?? 'unnamed-step';

export const powertoolsLogger = new PowertoolsLogger({ persistentKeys: { step: stepName } });
export const metrics = new Metrics({ defaultDimensions: { step: stepName } });
export const tracer = new Tracer();

/** What a step gets besides its event. */
export interface StepTools {
  readonly logger: Logger;
  readonly context: Context;
}

export type StepHandler<Event, Result> = MiddyfiedHandler<Event, Result>;

/**
 * The core's `Logger` port over Powertools: details become structured keys of the log line. Every
 * line goes through the one redaction path, whatever wrote it: no task token or presigned URL
 * signature reaches the logs.
 */
export function toCoreLogger(logger: PowertoolsLogger): Logger {
  const write =
    (level: 'info' | 'warn' | 'error') =>
    (message: string, details?: Record<string, unknown>): void => {
      if (details === undefined) logger[level](redactText(message));
      else logger[level](redactText(message), redactValue(details) as Record<string, unknown>);
    };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

const coreLogger = toCoreLogger(powertoolsLogger);

/**
 * Makes the Lambda handler of one step from a function that calls the core. The event is never
 * logged (task tokens travel in some events); a failure is redacted (its message becomes the
 * execution history's `cause`), logged with its name and message, counted in the `StepFailed`
 * metric and rethrown with its class and name unchanged.
 */
export function defineStep<Event, Result>(
  run: (event: Event, tools: StepTools) => Promise<Result>,
): StepHandler<Event, Result> {
  const handler = async (event: Event, context: Context): Promise<Result> => {
    try {
      const result = await run(event, { logger: coreLogger, context });
      metrics.addMetric('StepSucceeded', MetricUnit.Count, 1);
      return result;
    } catch (thrown) {
      const error = redactError(thrown);
      metrics.addMetric('StepFailed', MetricUnit.Count, 1);
      if (error instanceof Error) powertoolsLogger.error('Step failed', error);
      else powertoolsLogger.error('Step failed', { error: String(error) });
      throw error;
    }
  };
  return (
    middy<Event, Result>(handler)
      // logEvent false overrides POWERTOOLS_LOGGER_LOG_EVENT: events may carry task tokens.
      .use(injectLambdaContext(powertoolsLogger, { resetKeys: true, logEvent: false }))
      .use(logMetrics(metrics, { captureColdStartMetric: true }))
      .use(captureLambdaHandler(tracer, { captureResponse: false }))
  );
}
