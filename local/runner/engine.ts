// The polyfill must be evaluated before the engine: ES modules evaluate imports in source order.
import './promise-with-resolvers.js';
import { StateMachine } from 'aws-local-stepfunctions';
import type { StateMachineDefinition } from 'aws-local-stepfunctions';
import type { AslDefinition } from './asl.js';

export {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  StateMachine,
} from 'aws-local-stepfunctions';
export type { RunOptions, StateMachineDefinition } from 'aws-local-stepfunctions';

/** One entry of the engine's execution event log (the package does not export the type). */
export type EngineEvent =
  ReturnType<StateMachine['run']>['eventLogs'] extends AsyncGenerator<infer E> ? E : never;

export type EngineExecution = ReturnType<StateMachine['run']>;

let statesTimeoutError: Promise<new () => Error> | undefined;

/**
 * The engine's own `States.Timeout` error class, which it does not export. It must be an instance
 * of that class for `States.TaskFailed` to NOT match a timeout, as on AWS ("States.TaskFailed
 * matches any known error name except States.Timeout",
 * https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html): the engine
 * tests `instanceof`, not the name. Obtained once by letting a never-ending Task time out after 1 ms.
 */
export function engineStatesTimeoutError(): Promise<new () => Error> {
  statesTimeoutError ??= probeStatesTimeoutError();
  return statesTimeoutError;
}

async function probeStatesTimeoutError(): Promise<new () => Error> {
  const probe = new StateMachine(
    {
      StartAt: 'Probe',
      States: { Probe: { Type: 'Task', Resource: 'probe', TimeoutSeconds: 0.001, End: true } },
    },
    { validationOptions: { noValidate: true } },
  );
  const execution = probe.run(null, {
    overrides: { taskResourceLocalHandlers: { Probe: () => new Promise<never>(() => undefined) } },
  });
  const failure: unknown = await execution.result.then(
    () => undefined,
    (error: unknown) => error,
  );
  const timeout = failure instanceof Error ? failure.cause : undefined;
  if (!(timeout instanceof Error) || timeout.name !== 'States.Timeout') {
    throw new Error(
      `aws-local-stepfunctions changed: a Task past its TimeoutSeconds failed with ${String(timeout)}, expected a States.Timeout error. Re-check engine.ts against the installed version.`,
    );
  }
  const timeoutClass: unknown = timeout.constructor;
  return timeoutClass as new () => Error;
}

/**
 * Definitions (their JSON text) the engine has validated in this process. Validation (asl-validator
 * with ARN and path checks) costs about 0.5 s of CPU for the optimization workflow and gives the
 * same answer for the same text, so a definition run again (a test suite's every execution, a local
 * run's clean-up) is validated once.
 */
const validatedDefinitions = new Set<string>();

/**
 * Records `definition` as validated without validating it here: for a definition the engine of this
 * very version validated in another process (the synthesis cache's writer, local/synthesis/synthesis-cache.ts).
 */
export function rememberValidatedDefinition(definition: AslDefinition): void {
  validatedDefinitions.add(JSON.stringify(definition));
}

/** An engine for `definition`, validated unless `validated` (this process's set by default) holds its text. */
export function createEngine(
  definition: AslDefinition,
  validated: Set<string> = validatedDefinitions,
): StateMachine {
  // The engine validates the definition itself (asl-validator, with ARN and path checks) and throws
  // on anything AWS would reject, so the loosely typed ASL is handed over as its definition type.
  // It gets a copy: asl-validator 3.16 writes `QueryLanguage: "JSONPath"` into every state of the
  // object it validates, and the caller's definition must stay as synthesized. A JSON copy, not
  // structuredClone: the engine treats only objects whose prototype is its realm's
  // Object.prototype as payload templates, and structuredClone may build them in another realm
  // (it does under jest's vm modules), which silently leaves nested "key.$" fields unevaluated.
  const text = JSON.stringify(definition);
  const copy: unknown = JSON.parse(text);
  const engine = new StateMachine(
    copy as StateMachineDefinition,
    validated.has(text) ? { validationOptions: { noValidate: true } } : undefined,
  );
  // Reached only when the definition passed: one that failed is validated (and refused) again.
  validated.add(text);
  return engine;
}
