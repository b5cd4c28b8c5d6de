/**
 * The local state-machine runner: runs the definitions `cdk synth` produces on aws-local-stepfunctions,
 * each Task served by a local handler. See README.md for what the engine supports.
 */
export type { AslDefinition } from './asl.js';
export { walkStates } from './asl.js';
export { createEngine, rememberValidatedDefinition } from './engine.js';
export { UnsupportedDefinitionError } from './engine-compatibility.js';
export type { RunnerEvent } from './events.js';
export type { ExtractedStateMachine, ResourceReference } from './extract-state-machines.js';
export { extractStateMachines } from './extract-state-machines.js';
export type { JsonObject, JsonValue } from './json.js';
export { toJsonValue } from './json.js';
export { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './local-arns.js';
export type { PreparedRun, RunResult, RunStateMachineOptions } from './run-state-machine.js';
export { prepareRun, runStateMachine } from './run-state-machine.js';
export type { TaskContext, TaskHandler, TaskResolver } from './task-handlers.js';
export type { TaskInfo } from './task-info.js';
export type { TaskTokenErrorName } from './task-tokens.js';
export { TaskTokenBroker, TaskTokenError } from './task-tokens.js';
