/**
 * The model server's configuration: one option set, read either from container environment
 * variables (how SageMaker and the local model host configure a container) or passed in-process.
 * Both paths go through the same validation, so an error always names the setting, the value given
 * and what was expected.
 */
import { availableParallelism } from 'node:os';

import type { InputIssue } from '../../core/contracts/index.js';
import { InvalidServerConfigError } from './errors.js';

export interface ModelServerOptions {
  /** TCP port; 0 lets the OS pick a free one (read it from the started server). */
  readonly port: number;
  /** Interface to bind: `0.0.0.0` in a container (SageMaker connects from outside), `127.0.0.1` locally. */
  readonly host: string;
  /** Folder holding the model: `model.onnx` at its root, or the only `*.onnx` file there. */
  readonly modelDir: string;
  /** Concurrent inference workers (each a worker thread with its own ONNX Runtime session). */
  readonly workers: number;
  /** ONNX Runtime intra-op threads per worker. */
  readonly intraOpThreads: number;
  /**
   * Whether idle intra-op threads spin (ONNX Runtime's `session.intra_op.allow_spinning`) rather
   * than sleep. Off by default: locally the server shares the cores with the load generator, and
   * spinning threads take CPU from it (measured in docs/decisions.md, "The local model server's
   * threads sleep when idle"). A container alone on its instance may turn it on for latency.
   */
  readonly spinWait: boolean;
  /** Largest number of samples run in one inference; 1 disables dynamic batching. */
  readonly maxBatchSize: number;
  /** How long the oldest queued request may wait for others to fill a batch. */
  readonly maxBatchDelayMs: number;
  /** Requests that may wait for a worker; beyond it the server answers 503 (backpressure). */
  readonly maxQueue: number;
  /** Deadline of one invocation, queueing included; beyond it the server answers 504. */
  readonly requestTimeoutMs: number;
}

/** The environment variable behind each option: the container's configuration contract. */
export const MODEL_SERVER_ENV = {
  port: 'SAGEMAKER_BIND_TO_PORT',
  host: 'MODEL_SERVER_HOST',
  modelDir: 'SM_MODEL_DIR',
  workers: 'SAGEMAKER_MODEL_SERVER_WORKERS',
  intraOpThreads: 'MODEL_SERVER_INTRA_OP_THREADS',
  spinWait: 'MODEL_SERVER_SPIN_WAIT',
  maxBatchSize: 'MODEL_SERVER_MAX_BATCH_SIZE',
  maxBatchDelayMs: 'MODEL_SERVER_MAX_BATCH_DELAY_MS',
  maxQueue: 'MODEL_SERVER_MAX_QUEUE',
  requestTimeoutMs: 'SAGEMAKER_MODEL_SERVER_TIMEOUT',
} as const satisfies Record<keyof ModelServerOptions, string>;

/** Read when MODEL_SERVER_INTRA_OP_THREADS is absent: the variable most ML containers honour. */
export const OMP_NUM_THREADS_ENV = 'OMP_NUM_THREADS';

export const MODEL_SERVER_DEFAULTS = {
  // SageMaker sends requests to port 8080 unless SAGEMAKER_BIND_TO_PORT says otherwise
  // (https://docs.aws.amazon.com/sagemaker/latest/dg/your-algorithms-inference-code.html).
  port: 8080,
  host: '0.0.0.0',
  // SageMaker extracts model.tar.gz into /opt/ml/model (same page).
  modelDir: '/opt/ml/model',
  workers: 1,
  spinWait: false,
  maxBatchSize: 1,
  maxBatchDelayMs: 5,
  maxQueue: 100,
  // SageMaker expects an answer to /invocations within 60 seconds (same page).
  requestTimeoutMs: 60_000,
} as const;

/** Upper bounds that catch typos (an extra zero) rather than limit real deployments. */
const LIMITS = {
  workers: 64,
  intraOpThreads: 256,
  maxBatchSize: 1024,
  maxBatchDelayMs: 10_000,
  maxQueue: 100_000,
  timeoutSeconds: 3600,
} as const;

/** Intra-op threads when none are configured: share the machine's cores between the workers. */
export function defaultIntraOpThreads(workers: number): number {
  return Math.max(1, Math.floor(availableParallelism() / workers));
}

/**
 * Completes and validates in-process options (tests, the local model host). `modelDir` has no
 * useful default outside a container, so it is required here.
 */
export function resolveServerOptions(
  options: Partial<ModelServerOptions> & Pick<ModelServerOptions, 'modelDir'>,
): ModelServerOptions {
  const issues: InputIssue[] = [];
  const integer = (field: keyof ModelServerOptions, value: number, min: number, max: number) =>
    checkInteger(issues, field, value, min, max);
  const workers = integer('workers', options.workers ?? MODEL_SERVER_DEFAULTS.workers, 1, LIMITS.workers);
  const resolved: ModelServerOptions = {
    port: integer('port', options.port ?? MODEL_SERVER_DEFAULTS.port, 0, 65_535),
    host: checkNonEmpty(issues, 'host', options.host ?? MODEL_SERVER_DEFAULTS.host),
    modelDir: checkNonEmpty(issues, 'modelDir', options.modelDir),
    workers,
    intraOpThreads: integer(
      'intraOpThreads',
      options.intraOpThreads ?? defaultIntraOpThreads(Math.max(1, workers)),
      1,
      LIMITS.intraOpThreads,
    ),
    spinWait: options.spinWait ?? MODEL_SERVER_DEFAULTS.spinWait,
    maxBatchSize: integer(
      'maxBatchSize',
      options.maxBatchSize ?? MODEL_SERVER_DEFAULTS.maxBatchSize,
      1,
      LIMITS.maxBatchSize,
    ),
    maxBatchDelayMs: integer(
      'maxBatchDelayMs',
      options.maxBatchDelayMs ?? MODEL_SERVER_DEFAULTS.maxBatchDelayMs,
      0,
      LIMITS.maxBatchDelayMs,
    ),
    maxQueue: integer('maxQueue', options.maxQueue ?? MODEL_SERVER_DEFAULTS.maxQueue, 1, LIMITS.maxQueue),
    requestTimeoutMs: integer(
      'requestTimeoutMs',
      options.requestTimeoutMs ?? MODEL_SERVER_DEFAULTS.requestTimeoutMs,
      1,
      LIMITS.timeoutSeconds * 1000,
    ),
  };
  if (issues.length > 0) throw new InvalidServerConfigError(issues);
  return resolved;
}

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Reads and validates the container environment (see MODEL_SERVER_ENV and local/model-server/README.md).
 * Every problem is reported at once, each naming the variable, its value and what was expected.
 */
export function readServerOptionsFromEnv(env: Environment): ModelServerOptions {
  const issues: InputIssue[] = [];
  const integerVar = (field: keyof typeof MODEL_SERVER_ENV, min: number, max: number) =>
    readIntegerVar(issues, env, MODEL_SERVER_ENV[field], min, max);

  const workers = integerVar('workers', 1, LIMITS.workers);
  const intraOpThreads =
    readIntegerVar(issues, env, MODEL_SERVER_ENV.intraOpThreads, 1, LIMITS.intraOpThreads) ??
    readIntegerVar(issues, env, OMP_NUM_THREADS_ENV, 1, LIMITS.intraOpThreads);
  const timeoutSeconds = integerVar('requestTimeoutMs', 1, LIMITS.timeoutSeconds);
  const fromEnv: Partial<ModelServerOptions> = {
    port: integerVar('port', 0, 65_535),
    host: readStringVar(env, MODEL_SERVER_ENV.host),
    workers,
    intraOpThreads,
    spinWait: readBooleanVar(issues, env, MODEL_SERVER_ENV.spinWait),
    maxBatchSize: integerVar('maxBatchSize', 1, LIMITS.maxBatchSize),
    maxBatchDelayMs: integerVar('maxBatchDelayMs', 0, LIMITS.maxBatchDelayMs),
    maxQueue: integerVar('maxQueue', 1, LIMITS.maxQueue),
    requestTimeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000,
  };
  const modelDir = readStringVar(env, MODEL_SERVER_ENV.modelDir) ?? MODEL_SERVER_DEFAULTS.modelDir;
  if (issues.length > 0) throw new InvalidServerConfigError(issues);
  return resolveServerOptions({ ...fromEnv, modelDir });
}

/** The environment that configures a server with these options: what a parent process passes. */
export function serverOptionsToEnv(options: Partial<ModelServerOptions>): Record<string, string> {
  const env: Record<string, string> = {};
  const set = (field: keyof ModelServerOptions, value: string | number | undefined) => {
    if (value !== undefined) env[MODEL_SERVER_ENV[field]] = String(value);
  };
  set('port', options.port);
  set('host', options.host);
  set('modelDir', options.modelDir);
  set('workers', options.workers);
  set('intraOpThreads', options.intraOpThreads);
  set('spinWait', options.spinWait === undefined ? undefined : options.spinWait ? 1 : 0);
  set('maxBatchSize', options.maxBatchSize);
  set('maxBatchDelayMs', options.maxBatchDelayMs);
  set('maxQueue', options.maxQueue);
  // The SageMaker variable is in whole seconds; round up so a deadline is never shortened.
  set(
    'requestTimeoutMs',
    options.requestTimeoutMs === undefined ? undefined : Math.ceil(options.requestTimeoutMs / 1000),
  );
  return env;
}

function checkInteger(issues: InputIssue[], field: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    issues.push({ field, given: String(value), expected: `an integer from ${min} to ${max}` });
  }
  return value;
}

function checkNonEmpty(issues: InputIssue[], field: string, value: string): string {
  if (value.trim() === '') issues.push({ field, given: '""', expected: 'a non-empty string' });
  return value;
}

function readIntegerVar(
  issues: InputIssue[],
  env: Environment,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    issues.push({
      field: name,
      given: JSON.stringify(raw),
      expected: `an integer from ${min} to ${max}`,
    });
    return undefined;
  }
  return value;
}

/** `1`/`true` or `0`/`false` (any case); unset or empty: the default. */
function readBooleanVar(issues: InputIssue[], env: Environment, name: string): boolean | undefined {
  const raw = readStringVar(env, name)?.trim().toLowerCase();
  if (raw === undefined) return undefined;
  if (raw === '1' || raw === 'true') return true;
  if (raw === '0' || raw === 'false') return false;
  issues.push({ field: name, given: JSON.stringify(env[name]), expected: '1 or true, 0 or false' });
  return undefined;
}

/** An empty variable counts as unset: `docker run -e NAME=` should not be an error. */
function readStringVar(env: Environment, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw;
}
