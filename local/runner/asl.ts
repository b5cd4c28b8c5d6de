import type { JsonObject } from './json.js';
import { isJsonObject, stringifyJson } from './json.js';

/**
 * Minimal typed access to an Amazon States Language definition (https://states-language.net/spec.html).
 * The runner passes the definition to the engine untouched; these helpers only read it.
 */
export interface AslDefinition extends JsonObject {
  StartAt: string;
  States: Record<string, JsonObject>;
}

export interface VisitedState {
  readonly name: string;
  readonly state: JsonObject;
  /** Enclosing Map/Parallel states, outermost first, e.g. `['Each candidate', 'branch 0']`. */
  readonly scope: readonly string[];
}

export function isAslDefinition(value: unknown): value is AslDefinition {
  return (
    isJsonObject(value) &&
    typeof value.StartAt === 'string' &&
    isJsonObject(value.States) &&
    Object.values(value.States).every(isJsonObject)
  );
}

export function assertAslDefinition(value: unknown, what: string): asserts value is AslDefinition {
  if (!isAslDefinition(value)) {
    throw new TypeError(
      `${what} is not a state machine definition: expected an object with StartAt (string) and States (object of states), got ${describeJson(value)}`,
    );
  }
}

/** Every state of the definition, nested ones included (Map ItemProcessor/Iterator, Parallel Branches). */
export function* walkStates(
  definition: AslDefinition,
  scope: readonly string[] = [],
): Generator<VisitedState> {
  for (const [name, state] of Object.entries(definition.States)) {
    yield { name, state, scope };
    for (const [label, nested] of nestedDefinitions(name, state)) {
      yield* walkStates(nested, [...scope, label]);
    }
  }
}

function nestedDefinitions(name: string, state: JsonObject): [string, AslDefinition][] {
  const nested: [string, AslDefinition][] = [];
  const processor = state.ItemProcessor ?? state.Iterator;
  if (state.Type === 'Map' && isAslDefinition(processor)) nested.push([name, processor]);
  if (state.Type === 'Parallel' && Array.isArray(state.Branches)) {
    state.Branches.forEach((branch, index) => {
      if (isAslDefinition(branch)) nested.push([`${name} (branch ${index})`, branch]);
    });
  }
  return nested;
}

export function stringField(state: JsonObject, field: string): string | undefined {
  const value = state[field];
  return typeof value === 'string' ? value : undefined;
}

export function numberField(state: JsonObject, field: string): number | undefined {
  const value = state[field];
  return typeof value === 'number' ? value : undefined;
}

export function describeJson(value: unknown): string {
  const text = stringifyJson(value);
  if (text === undefined) return String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
