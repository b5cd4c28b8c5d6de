import type { EngineEvent } from './engine.js';
import type { JsonValue } from './json.js';
import { stringifyJson } from './json.js';

interface StateEventBase {
  readonly timestamp: number;
  readonly stateName: string;
  readonly stateType: string;
  readonly input: JsonValue;
  /** Set inside a Map iteration: the index of its item. */
  readonly mapIndex?: number;
}

/** Progress of a local execution, for live display and for tests that check the path taken. */
export type RunnerEvent =
  | { readonly type: 'ExecutionStarted'; readonly timestamp: number; readonly input: JsonValue }
  | { readonly type: 'ExecutionSucceeded'; readonly timestamp: number; readonly output: JsonValue }
  | {
      readonly type: 'ExecutionFailed';
      readonly timestamp: number;
      readonly error: string;
      readonly cause: string;
    }
  | { readonly type: 'ExecutionAborted' | 'ExecutionTimedOut'; readonly timestamp: number }
  | (StateEventBase & { readonly type: 'StateEntered' })
  | (StateEventBase & { readonly type: 'StateExited'; readonly output: JsonValue })
  | (StateEventBase & { readonly type: 'StateFailed'; readonly error: string; readonly cause: string })
  | (StateEventBase & { readonly type: 'StateRetried'; readonly attempt: number })
  | (StateEventBase & { readonly type: 'StateCaught'; readonly errorEquals: readonly string[] })
  | {
      readonly type: 'MapIterationStarted' | 'MapIterationSucceeded';
      readonly timestamp: number;
      readonly mapStateName: string;
      readonly index: number;
    }
  | {
      readonly type: 'MapIterationFailed';
      readonly timestamp: number;
      readonly mapStateName: string;
      readonly index: number;
      readonly error: string;
      readonly cause: string;
    }
  | {
      readonly type: 'ParallelBranchStarted' | 'ParallelBranchSucceeded';
      readonly timestamp: number;
      readonly parallelStateName: string;
    }
  | {
      readonly type: 'ParallelBranchFailed';
      readonly timestamp: number;
      readonly parallelStateName: string;
      readonly error: string;
      readonly cause: string;
    };

export function toRunnerEvent(event: EngineEvent): RunnerEvent {
  const { timestamp } = event;
  switch (event.type) {
    case 'ExecutionStarted':
      return { type: event.type, timestamp, input: event.input };
    case 'ExecutionSucceeded':
      return { type: event.type, timestamp, output: event.output };
    case 'ExecutionFailed':
      return { type: event.type, timestamp, error: event.Error, cause: causeText(event.Cause) };
    case 'ExecutionAborted':
      return { type: event.type, timestamp };
    case 'ExecutionTimeout':
      return { type: 'ExecutionTimedOut', timestamp };
    case 'StateEntered':
      return { type: event.type, ...stateBase(event) };
    case 'StateExited':
      return { type: event.type, ...stateBase(event), output: event.state.output ?? null };
    case 'StateFailed':
      return {
        type: event.type,
        ...stateBase(event),
        error: event.Error,
        cause: causeText(event.Cause),
      };
    case 'StateRetried':
      return { type: event.type, ...stateBase(event), attempt: event.retry.attempt };
    case 'StateCaught':
      return { type: event.type, ...stateBase(event), errorEquals: event.catch.catcher.ErrorEquals };
    case 'MapIterationStarted':
    case 'MapIterationSucceeded':
      return { type: event.type, timestamp, mapStateName: event.parentState.name, index: event.index };
    case 'MapIterationFailed':
      return {
        type: event.type,
        timestamp,
        mapStateName: event.parentState.name,
        index: event.index,
        error: event.Error,
        cause: causeText(event.Cause),
      };
    case 'ParallelBranchStarted':
    case 'ParallelBranchSucceeded':
      return { type: event.type, timestamp, parallelStateName: event.parentState.name };
    case 'ParallelBranchFailed':
      return {
        type: event.type,
        timestamp,
        parallelStateName: event.parentState.name,
        error: event.Error,
        cause: causeText(event.Cause),
      };
  }
}

function stateBase(event: {
  timestamp: number;
  state: { name: string; type: string; input: JsonValue };
  index?: number;
}): StateEventBase {
  return {
    timestamp: event.timestamp,
    stateName: event.state.name,
    stateType: event.state.type,
    input: event.state.input,
    ...(event.index === undefined ? {} : { mapIndex: event.index }),
  };
}

function causeText(cause: unknown): string {
  if (typeof cause === 'string') return cause;
  if (cause instanceof Error) return cause.message;
  return stringifyJson(cause) ?? '';
}
