import { setMaxListeners } from 'node:events';
import type { AslDefinition } from './asl.js';
import { numberField, walkStates } from './asl.js';
import type { ResourceReference } from './cloudformation-tokens.js';
import type { EngineExecution, RunOptions } from './engine.js';
import {
  createEngine,
  engineStatesTimeoutError,
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
} from './engine.js';
import { assertRunnableLocally } from './engine-compatibility.js';
import type { RunnerEvent } from './events.js';
import { toRunnerEvent } from './events.js';
import type { JsonValue } from './json.js';
import { localExecutionArn, localStateMachineArn } from './local-arns.js';
import type { TaskResolver, TaskRunScope } from './task-handlers.js';
import { createTaskOverride } from './task-handlers.js';
import type { TaskInfo } from './task-info.js';
import { describeTask } from './task-info.js';
import { TaskTokenBroker } from './task-tokens.js';

export interface RunStateMachineOptions {
  /** The definition as synthesized (see `extractStateMachines`); it runs unchanged. */
  readonly definition: AslDefinition;
  readonly input: JsonValue;
  readonly resolveTask: TaskResolver;
  /** The run id: `$$.Execution.Name`, from which our workflows derive resource names. */
  readonly executionName: string;
  /**
   * `$$.Execution.RedriveCount`, read at each evaluation: the local engine cannot redrive, so a
   * test that a redriven step refuses to resume changes it mid-run. @default always 0
   */
  readonly redriveCount?: () => number;
  /** `$$.StateMachine.Name`. @default 'LocalStateMachine' */
  readonly stateMachineName?: string;
  /** `resources` of the extracted state machine: tells the resolver which function a Task calls and its STEP_NAME. */
  readonly resources?: Readonly<Record<string, ResourceReference>>;
  /** Required when a Task uses `.waitForTaskToken`: where task tokens are issued and resumed. */
  readonly taskTokens?: TaskTokenBroker;
  /** Duration of every Wait state, nested ones included; `null` waits as the definition says. @default 10 */
  readonly waitTimeOverrideMs?: number | null;
  /** Pause before every retry; `null` keeps IntervalSeconds/BackoffRate. @default 10 */
  readonly retryIntervalOverrideMs?: number | null;
  /** Multiplies TimeoutSeconds/HeartbeatSeconds of Tasks and of the state machine. @default 1 */
  readonly timeoutScale?: number;
  /** Aborting it aborts the execution (status ABORTED). */
  readonly signal?: AbortSignal;
  /**
   * Called for each execution event, in order, before `runStateMachine` resolves. If it throws, the
   * execution is aborted and `runStateMachine` rejects with that error.
   */
  readonly onEvent?: (event: RunnerEvent) => void;
}

export type RunResult =
  | { readonly status: 'SUCCEEDED'; readonly output: JsonValue }
  | { readonly status: 'FAILED'; readonly error: string; readonly cause: string }
  | { readonly status: 'ABORTED' }
  | { readonly status: 'TIMED_OUT'; readonly error: 'States.Timeout'; readonly cause: string };

/** Exactly what the runner hands the engine for one execution. */
export interface PreparedRun {
  /** The very object given in the options: the runner never rewrites a definition (the engine gets an identical copy). */
  readonly definition: AslDefinition;
  readonly runOptions: RunOptions;
  readonly tasks: readonly TaskInfo[];
  /** Aborting it stops every Task attempt of the run (their handlers see `context.signal` abort). */
  readonly stop: AbortController;
}

const DEFAULT_OVERRIDE_MS = 10;
const DEFAULT_STATE_MACHINE_NAME = 'LocalStateMachine';

/**
 * Runs a synthesized state machine definition on aws-local-stepfunctions, each Task served by the
 * local handler `resolveTask` picks. Resolves when the execution ends, whatever its status.
 */
export async function runStateMachine(options: RunStateMachineOptions): Promise<RunResult> {
  const prepared = await prepareRun(options);
  const engine = createEngine(prepared.definition);
  const execution = engine.run(options.input, prepared.runOptions);
  const timeout = startExecutionTimeout(prepared.definition, options, execution);
  const onAbort = (): void => {
    execution.abort();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted === true) execution.abort();
  const listenerFailure = options.onEvent
    ? deliverEvents(execution, options.onEvent, timeout.hasFired)
    : Promise.resolve(undefined);
  let result: RunResult;
  try {
    result = await settle(execution, timeout.hasFired, timeout.cause);
  } finally {
    timeout.clear();
    options.signal?.removeEventListener('abort', onAbort);
    prepared.stop.abort(new Error(`Execution ${options.executionName} ended`));
  }
  const failure = await listenerFailure;
  if (failure) throw failure.error;
  return result;
}

/** Checks the definition, resolves every Task's handler and builds the engine's overrides and context. */
export async function prepareRun(options: RunStateMachineOptions): Promise<PreparedRun> {
  const { definition, executionName } = options;
  assertExecutionName(executionName);
  const timeoutScale = options.timeoutScale ?? 1;
  if (!(timeoutScale > 0)) throw new RangeError(`timeoutScale must be > 0, got ${timeoutScale}`);
  assertRunnableLocally(definition);

  const stateMachineName = options.stateMachineName ?? DEFAULT_STATE_MACHINE_NAME;
  const executionId = localExecutionArn(stateMachineName, executionName);
  const taskTokens = options.taskTokens ?? new TaskTokenBroker();
  const stop = new AbortController();
  // Every running Task attempt listens on this signal: an async run waits on hundreds at once.
  setMaxListeners(0, stop.signal);
  const scope: TaskRunScope = {
    executionName,
    executionId,
    stateMachineName,
    signal: stop.signal,
    timeoutScale,
    ...(options.taskTokens ? { taskTokens: options.taskTokens } : {}),
    unclaimedTokens: new Set(),
    createTimeoutError: await timeoutErrorFactory(),
  };

  const states = [...walkStates(definition)];
  const tasks = states
    .filter(({ state }) => state.Type === 'Task')
    .map((visited) => describeTask(visited, options.resources ?? {}));
  const tokenTask = tasks.find((task) => task.info.waitForTaskToken);
  if (tokenTask && !options.taskTokens) {
    throw new Error(
      `Task "${tokenTask.info.stateName}" uses .waitForTaskToken: pass a taskTokens broker so that something can resume it`,
    );
  }
  const taskResourceLocalHandlers = Object.fromEntries(
    tasks.map((task) => [
      task.info.stateName,
      createTaskOverride(task, options.resolveTask(task.info), scope),
    ]),
  );
  const waitTimeOverrides = overrideEach(
    states.filter(({ state }) => state.Type === 'Wait').map(({ name }) => name),
    options.waitTimeOverrideMs === undefined ? DEFAULT_OVERRIDE_MS : options.waitTimeOverrideMs,
    'waitTimeOverrideMs',
  );
  const retryIntervalOverrides = overrideEach(
    states.filter(({ state }) => Array.isArray(state.Retry)).map(({ name }) => name),
    options.retryIntervalOverrideMs === undefined ? DEFAULT_OVERRIDE_MS : options.retryIntervalOverrideMs,
    'retryIntervalOverrideMs',
  );

  const context = {
    Execution: {
      Id: executionId,
      Name: executionName,
      get RedriveCount(): number {
        return options.redriveCount?.() ?? 0;
      },
    },
    StateMachine: { Id: localStateMachineArn(stateMachineName), Name: stateMachineName },
    // A getter, so every evaluation of $$.Task.Token (one per Task attempt) gets a fresh token.
    Task: {
      get Token(): string {
        const token = taskTokens.issueToken();
        scope.unclaimedTokens.add(token);
        return token;
      },
    },
  };
  return {
    definition,
    runOptions: {
      overrides: { taskResourceLocalHandlers, waitTimeOverrides, retryIntervalOverrides },
      context,
    },
    tasks: tasks.map((task) => task.info),
    stop,
  };
}

async function settle(
  execution: EngineExecution,
  timedOutByRunner: () => boolean,
  timeoutCause: string,
): Promise<RunResult> {
  try {
    return { status: 'SUCCEEDED', output: await execution.result };
  } catch (error) {
    if (error instanceof ExecutionAbortedError) {
      return timedOutByRunner()
        ? { status: 'TIMED_OUT', error: 'States.Timeout', cause: timeoutCause }
        : { status: 'ABORTED' };
    }
    if (error instanceof ExecutionTimeoutError) {
      return { status: 'TIMED_OUT', error: 'States.Timeout', cause: timeoutCause };
    }
    if (error instanceof ExecutionError && error.cause instanceof Error) {
      return { status: 'FAILED', error: error.cause.name, cause: error.cause.message };
    }
    throw error;
  }
}

/** The state machine's own TimeoutSeconds, scaled; the engine would apply it unscaled. */
function startExecutionTimeout(
  definition: AslDefinition,
  options: RunStateMachineOptions,
  execution: EngineExecution,
): { hasFired: () => boolean; cause: string; clear: () => void } {
  const seconds = numberField(definition, 'TimeoutSeconds');
  const scale = options.timeoutScale ?? 1;
  const cause = `The execution ran longer than the state machine's TimeoutSeconds (${seconds ?? 'none'} s, × ${scale} locally)`;
  let fired = false;
  const timer =
    seconds === undefined
      ? undefined
      : setTimeout(
          () => {
            fired = true;
            execution.abort();
          },
          seconds * 1000 * scale,
        );
  return {
    hasFired: () => fired,
    cause,
    clear: () => {
      clearTimeout(timer);
    },
  };
}

/** Never rejects (a rejection would go unhandled while the execution runs): returns what `onEvent` threw. */
async function deliverEvents(
  execution: EngineExecution,
  onEvent: (event: RunnerEvent) => void,
  timedOutByRunner: () => boolean,
): Promise<{ error: unknown } | undefined> {
  for await (const engineEvent of execution.eventLogs) {
    const event = toRunnerEvent(engineEvent);
    try {
      // The runner's own (scaled) execution timeout aborts the engine; report it as a timeout.
      onEvent(
        event.type === 'ExecutionAborted' && timedOutByRunner()
          ? { type: 'ExecutionTimedOut', timestamp: event.timestamp }
          : event,
      );
    } catch (error) {
      execution.abort();
      return { error };
    }
  }
  return undefined;
}

function overrideEach(
  stateNames: readonly string[],
  milliseconds: number | null,
  option: string,
): Record<string, number> {
  if (milliseconds === null) return {};
  if (!(milliseconds >= 0)) throw new RangeError(`${option} must be >= 0 or null, got ${milliseconds}`);
  return Object.fromEntries(stateNames.map((name) => [name, milliseconds]));
}

async function timeoutErrorFactory(): Promise<() => Error> {
  const StatesTimeoutError = await engineStatesTimeoutError();
  return () => new StatesTimeoutError();
}

/**
 * Execution names: 1-80 characters, none of whitespace, `< > { } [ ] ? * " # % \ ^ | ~ ` $ & , ; : /`
 * or control characters (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html).
 */
function assertExecutionName(name: string): void {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what AWS forbids
  const valid = /^[^\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]{1,80}$/;
  if (!valid.test(name)) {
    throw new RangeError(
      `executionName ${JSON.stringify(name)} is not a valid Step Functions execution name: expected 1-80 characters without whitespace or any of < > { } [ ] ? * " # % \\ ^ | ~ \` $ & , ; : /`,
    );
  }
}
