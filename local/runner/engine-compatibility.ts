import type { AslDefinition, VisitedState } from './asl.js';
import { walkStates } from './asl.js';
import type { JsonObject, JsonValue } from './json.js';
import { isJsonObject } from './json.js';

/**
 * A definition that would run differently on aws-local-stepfunctions 3.0.0 than on AWS. The engine
 * ignores what it does not know instead of failing, so the runner refuses these up front.
 */
export class UnsupportedDefinitionError extends Error {
  override readonly name = 'UnsupportedDefinitionError';

  constructor(readonly problems: readonly string[]) {
    super(
      `This state machine cannot run locally as it would on AWS:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
}

/** Distributed Map fields: the engine runs every Map inline and ignores these. */
const DISTRIBUTED_MAP_FIELDS = [
  'ItemReader',
  'ItemBatcher',
  'ResultWriter',
  'ToleratedFailurePercentage',
  'ToleratedFailurePercentagePath',
  'ToleratedFailureCount',
  'ToleratedFailureCountPath',
  'Label',
] as const;

/** The engine evaluates `"IsPresent": false` (and the other type tests) as never matching. */
const TYPE_TESTS = ['IsNull', 'IsPresent', 'IsNumeric', 'IsString', 'IsBoolean', 'IsTimestamp'];

export function assertRunnableLocally(definition: AslDefinition): void {
  const problems = jsonataLocations(definition, []).map(
    (location) =>
      `${location} is "JSONata": the local engine ignores QueryLanguage and would evaluate JSONata as JSONPath ({% %} expressions as plain strings); our state machines use JSONPath only`,
  );
  const seen = new Map<string, readonly string[]>();
  for (const visited of walkStates(definition)) {
    problems.push(...stateProblems(visited));
    const firstScope = seen.get(visited.name);
    if (firstScope) {
      problems.push(
        `${where(visited)}: the name is also used ${scopeText(firstScope)}; the engine keys Task and Wait overrides by state name, and AWS requires names unique across the whole state machine`,
      );
    } else {
      seen.set(visited.name, visited.scope);
    }
  }
  if (problems.length > 0) throw new UnsupportedDefinitionError(problems);
}

function stateProblems(visited: VisitedState): string[] {
  const { state } = visited;
  const at = where(visited);
  const problems: string[] = [];
  if ('Assign' in state) {
    problems.push(
      `${at}: uses Assign (workflow variables), which the local engine ignores; pass data through the state input instead`,
    );
  }
  if (state.ResultPath === '$') {
    problems.push(
      `${at}: ResultPath "$" makes the local engine add a key named "$" instead of replacing the input; omit ResultPath, which means the same`,
    );
  }
  for (const catcher of arrayField(state, 'Catch')) {
    if (isJsonObject(catcher) && catcher.ResultPath === '$') {
      problems.push(
        `${at}: a Catch with ResultPath "$" is mishandled by the local engine (adds a key "$"); omit ResultPath, or better keep the input with ResultPath "$.error"`,
      );
    }
    if (isJsonObject(catcher) && 'Assign' in catcher) {
      problems.push(`${at}: a Catch uses Assign, which the local engine ignores`);
    }
  }
  if (state.Type === 'Choice') problems.push(...choiceProblems(at, state));
  if (state.Type === 'Map') problems.push(...mapProblems(at, state));
  if (state.Type === 'Task') {
    for (const field of ['TimeoutSecondsPath', 'HeartbeatSecondsPath']) {
      if (field in state) {
        problems.push(
          `${at}: ${field} is not supported locally (the runner scales fixed TimeoutSeconds/HeartbeatSeconds); use a fixed value`,
        );
      }
    }
  }
  if (state.Type === 'Pass' && 'Result' in state && !state.Result) {
    problems.push(
      `${at}: the local engine ignores a falsy Result (${JSON.stringify(state.Result)}) and passes the input through; use Parameters or a non-empty object`,
    );
  }
  return problems;
}

function choiceProblems(at: string, state: JsonObject): string[] {
  const problems: string[] = [];
  const visit = (rule: JsonValue | undefined): void => {
    if (!isJsonObject(rule)) return;
    for (const test of TYPE_TESTS) {
      if (rule[test] === false) {
        problems.push(
          `${at}: the rule on ${JSON.stringify(rule.Variable)} uses "${test}": false, which the local engine never matches; write it as Not { "${test}": true } (CDK: Condition.not(Condition.${lowerFirst(test)}(...)))`,
        );
      }
    }
    if ('Assign' in rule) problems.push(`${at}: a choice rule uses Assign, which the local engine ignores`);
    for (const nested of [...arrayField(rule, 'And'), ...arrayField(rule, 'Or'), rule.Not]) {
      visit(nested);
    }
  };
  arrayField(state, 'Choices').forEach(visit);
  return problems;
}

function mapProblems(at: string, state: JsonObject): string[] {
  const problems = DISTRIBUTED_MAP_FIELDS.filter((field) => field in state).map(
    (field) =>
      `${at}: ${field} (Distributed Map) is not supported by the local engine, which runs every Map inline and would ignore it`,
  );
  const processor = state.ItemProcessor;
  const config = isJsonObject(processor) ? processor.ProcessorConfig : undefined;
  if (isJsonObject(config) && config.Mode === 'DISTRIBUTED') {
    problems.push(`${at}: ProcessorConfig.Mode DISTRIBUTED is not supported by the local engine; use INLINE`);
  }
  return problems;
}

/** Every `QueryLanguage: "JSONata"` in the definition, wherever it is (top level, state, nested). */
function jsonataLocations(value: JsonValue, path: readonly string[]): string[] {
  if (Array.isArray(value)) {
    return value.flatMap((item, index) => jsonataLocations(item, [...path, String(index)]));
  }
  if (!isJsonObject(value)) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === 'QueryLanguage' && child === 'JSONata'
      ? [[...path, key].join('.')]
      : jsonataLocations(child, [...path, key]),
  );
}

function arrayField(value: JsonObject, field: string): JsonValue[] {
  const array = value[field];
  return Array.isArray(array) ? array : [];
}

function where({ name, scope }: VisitedState): string {
  return scope.length === 0 ? `state "${name}"` : `state "${name}" (${scopeText(scope)})`;
}

function scopeText(scope: readonly string[]): string {
  return scope.length === 0 ? 'at the top level' : `inside ${scope.map((s) => `"${s}"`).join(' > ')}`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
