/**
 * Configuration of the step Lambdas, read once at module scope through these helpers (never
 * `process.env.X!`): a missing or malformed variable fails the cold start with a message that names
 * the variable, what it got and where the value should have come from.
 */

/** The variables the step Lambdas read; the stack and the workflow set them under these names. */
export const StepVariables = {
  artifactsBucket: 'ARTIFACTS_BUCKET',
  sagemakerExecutionRoleArn: 'SAGEMAKER_EXECUTION_ROLE_ARN',
  compilationPollSeconds: 'COMPILATION_POLL_SECONDS',
  compilationMaxPollSeconds: 'COMPILATION_MAX_POLL_SECONDS',
  endpointPollSeconds: 'ENDPOINT_POLL_SECONDS',
  endpointMaxPollSeconds: 'ENDPOINT_MAX_POLL_SECONDS',
  loadStartDelaySeconds: 'LOAD_START_DELAY_SECONDS',
  region: 'AWS_REGION',
  janitorMaxAgeHours: 'JANITOR_MAX_AGE_HOURS',
  janitorGraceMinutes: 'JANITOR_GRACE_MINUTES',
  /** The async workflow's SNS topics, which the notification Lambda listens to. */
  asyncSuccessTopicArn: 'ASYNC_SUCCESS_TOPIC_ARN',
  asyncErrorTopicArn: 'ASYNC_ERROR_TOPIC_ARN',
  /** The KMS key SageMaker encrypts async results with (the artifacts key). */
  asyncOutputKmsKeyId: 'ASYNC_OUTPUT_KMS_KEY_ID',
  /** The key of the async topics: a reused endpoint's role must be allowed to use it through SNS. */
  asyncTopicsKeyArn: 'ASYNC_TOPICS_KEY_ARN',
  /** The wait task's TimeoutSeconds, as deployed: runs whose queue TTL cannot fit are refused. */
  asyncWaitTimeoutSeconds: 'ASYNC_WAIT_TIMEOUT_SECONDS',
  /** The async workflow's task-token table, set on the Lambdas that store or resume tokens. */
  taskTokenTable: 'TASK_TOKEN_TABLE',
} as const;

/** Where the step Lambdas' variables are set, for error messages. */
export const DEFAULT_VARIABLE_SOURCE =
  'the ServingOptimizerStack (infra/stacks/serving-optimizer-stack.ts) sets it on every step Lambda; ' +
  'when running an entry outside Lambda, export it yourself';

type Environment = Readonly<Record<string, string | undefined>>;

/** A variable's value, or `undefined` when it is unset or empty. */
export function getOptionalEnv(name: string, env: Environment = process.env): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

export function getRequiredEnv(
  name: string,
  setBy: string = DEFAULT_VARIABLE_SOURCE,
  env: Environment = process.env,
): string {
  const value = getOptionalEnv(name, env);
  if (value === undefined) {
    throw new Error(
      `Environment variable ${name} is ${env[name] === undefined ? 'not set' : 'empty'}, expected a value: ${setBy}`,
    );
  }
  return value;
}

export interface NumberBounds {
  readonly min?: number;
  readonly max?: number;
  readonly integer?: boolean;
}

/** Parses a variable as a number within bounds, or returns `fallback` when it is unset. */
export function getNumberEnv(
  name: string,
  fallback: number,
  bounds: NumberBounds = {},
  env: Environment = process.env,
): number {
  const text = getOptionalEnv(name, env);
  if (text === undefined) return fallback;
  const value = Number(text);
  const expected = describeBounds(bounds);
  if (!Number.isFinite(value) || (bounds.integer === true && !Number.isInteger(value))) {
    throw new Error(`Environment variable ${name}: got ${JSON.stringify(text)}, expected ${expected}`);
  }
  if ((bounds.min !== undefined && value < bounds.min) || (bounds.max !== undefined && value > bounds.max)) {
    throw new Error(`Environment variable ${name}: got ${value}, expected ${expected}`);
  }
  return value;
}

function describeBounds(bounds: NumberBounds): string {
  const kind = bounds.integer === true ? 'an integer' : 'a number';
  if (bounds.min !== undefined && bounds.max !== undefined) {
    return `${kind} from ${bounds.min} to ${bounds.max}`;
  }
  if (bounds.min !== undefined) return `${kind} of at least ${bounds.min}`;
  if (bounds.max !== undefined) return `${kind} of at most ${bounds.max}`;
  return kind;
}
