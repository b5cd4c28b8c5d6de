import type { z } from 'zod';
import { type InputIssue, InvalidRunInputError } from './errors.js';
import { firstBoundCrossing, firstTextDepthCrossing, INPUT_BOUNDS } from './input-bounds.js';

/**
 * The one input-error formatter of the project: every schema (run input, async run input, load
 * plan, SLA) and every entry (first state, API client, CLIs, schedules) turns zod's issues into
 * `{ field, given, expected }` here, so a refusal reads the same wherever it is made.
 */

const MAX_GIVEN_LENGTH = 80;
/** Characters shown before the offending part when a long given value is cut around it. */
const WINDOW_LEAD = 24;

/**
 * Keys JavaScript objects treat specially. JSON.parse makes `"__proto__"` an own key, but zod's
 * records and every object spread downstream skip or mangle it, so the run would go on without
 * what the user wrote; `constructor` and `prototype` read inherited members on a lookup of an
 * absent key. Refused in every map of user keys (environment, environmentRanges, tags, pricing…).
 */
export const SPECIAL_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

const SPECIAL_KEY_EXPECTED =
  'a key other than "__proto__", "constructor" and "prototype" (JavaScript objects treat these ' +
  'names specially, so the run could not keep what you wrote): rename it';

/**
 * Marks a non-finite number inside an object while it is serialised (JSON.stringify writes it as
 * `null`); the marker, quotes included, is then replaced by the number as JavaScript prints it.
 */
const NON_FINITE_MARKER = '\u0000non-finite:';

function describeNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN (not a number)';
  // JSON.parse reads a literal beyond ±1.8e308 (e.g. 1e400) as ±Infinity, and JSON.stringify
  // writes that as null: say what the number became, and why.
  return `${value} (a number too large for JSON, such as 1e400)`;
}

function stringified(value: unknown): string | undefined {
  // JSON.stringify gives undefined for functions and symbols, whatever its declared type says.
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'number' && !Number.isFinite(item) ? `${NON_FINITE_MARKER}${item}` : item,
  );
}

function toJsonText(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return describeNumber(value);
  let json: string | undefined;
  try {
    json = stringified(value);
  } catch (error) {
    // JSON.stringify recurses: a value nested deeper than the stack allows overflows it. Input
    // reaches here within INPUT_BOUNDS (parseOrThrow checks them first); other callers may not.
    if (!(error instanceof RangeError)) throw error;
    return `${Array.isArray(value) ? 'an array' : 'an object'} nested too deeply to show`;
  }
  if (json === undefined) return typeof value;
  return json.replace(/"\\u0000non-finite:(-?Infinity|NaN)"/g, '$1');
}

/**
 * Renders a value as the user wrote it, short enough for an error line. A long string is cut
 * around `focus` (the index of its offending character, when a rule knows it) rather than after its
 * first characters, and says how long it was.
 */
export function describeGiven(value: unknown, focus?: number): string {
  if (value === undefined) return 'nothing';
  const text = toJsonText(value);
  if (text.length <= MAX_GIVEN_LENGTH) return text;
  const size = typeof value === 'string' ? ` (${value.length} characters)` : '';
  if (typeof value !== 'string' || focus === undefined) {
    return `${text.slice(0, MAX_GIVEN_LENGTH - 1)}…${size}`;
  }
  // Where the focus lands in the JSON text: escapes before it take more than one character.
  const at = JSON.stringify(value.slice(0, focus)).length - 1;
  const start = Math.max(0, Math.min(at - WINDOW_LEAD, text.length - MAX_GIVEN_LENGTH));
  const end = Math.min(text.length, start + MAX_GIVEN_LENGTH);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}${size}`;
}

const PLAIN_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** A user-chosen key longer than this is cut in a field path; the given value shows it in full. */
const MAX_KEY_IN_FIELD = 40;

function quotedKey(key: string): string {
  const shown = Array.from(key);
  return shown.length > MAX_KEY_IN_FIELD
    ? `${JSON.stringify(shown.slice(0, MAX_KEY_IN_FIELD - 1).join('')).slice(0, -1)}…"`
    : JSON.stringify(key);
}

/**
 * `['candidates', 2, 'instanceType']` → `candidates[2].instanceType`; a user-chosen name that is
 * not a plain identifier is quoted, so the field reads unambiguously: `tags["team:ml"]`,
 * `pricing.usdPerHour["ml.c5.xlarge"]`, `environment["__proto__"]`; a very long one is cut.
 */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let field = '';
  for (const key of path) {
    if (typeof key === 'number') field += `[${key}]`;
    else if (
      typeof key === 'string' &&
      (!PLAIN_NAME.test(key) || SPECIAL_KEYS.includes(key) || key.length > MAX_KEY_IN_FIELD)
    )
      field += `[${quotedKey(key)}]`;
    else field += field === '' ? String(key) : `.${String(key)}`;
  }
  return field === '' ? '(input)' : field;
}

/**
 * zod's messages start with a category ("Too small: expected …"); keep only what was expected,
 * with its bounds in words ("number to be >=60" → "a number of at least 60").
 */
function expectedFrom(message: string): string {
  const expected = message
    .replace(
      /^(Invalid input|Too small|Too big|Invalid option|Invalid string|Unrecognized key\(s\) in object): /,
      '',
    )
    .replace(/^expected /, '')
    .replace(/, received \w+$/, '');
  return boundInWords(expected) ?? expected;
}

const BOUND_WORDS: Readonly<Record<string, string>> = {
  '>': 'above',
  '>=': 'of at least',
  '<': 'below',
  '<=': 'of at most',
};

/** "number to be >0" → "a number above 0"; "string to have <=63 characters" → "at most 63 characters". */
function boundInWords(expected: string): string | undefined {
  const value = /^(number|bigint|date) to be (>=|<=|>|<)(.+)$/.exec(expected);
  if (value !== null) {
    const [, kind, operator = '', bound] = value;
    return `a ${kind === 'date' ? 'date' : 'number'} ${BOUND_WORDS[operator] ?? operator} ${bound}`;
  }
  const size = /^(string|array|set|file) to have (>=|<=|>|<)(\d+) (\w+)$/.exec(expected);
  if (size === null) return undefined;
  const [, , operator = '', count = '', unit] = size;
  const words: Readonly<Record<string, string>> = {
    '>': 'more than',
    '>=': 'at least',
    '<': 'fewer than',
    '<=': 'at most',
  };
  return `${words[operator] ?? operator} ${count} ${count === '1' ? (unit ?? '').replace(/s$/, '') : unit}`;
}

type Issue = z.core.$ZodIssue;

/**
 * How far an object is from a union branch's shape: the fields it has that the branch does not
 * know, the fields the branch requires that it lacks, and whether it is an object at all. Failing
 * rules deeper inside (a value's pattern, a range) do not count: they are what the user should read.
 */
function shapeDistance(branch: readonly Issue[]): number {
  let distance = 0;
  for (const issue of branch) {
    if (issue.code === 'unrecognized_keys' && issue.path.length === 0) distance += issue.keys.length;
    else if (issue.code === 'invalid_type' && issue.path.length === 0) distance += 1000;
    else if (issue.code === 'invalid_type' && issue.path.length === 1 && issue.input === undefined) {
      distance += 1;
    }
  }
  return distance;
}

/**
 * The branch of a union the input meant: the one whose fields it has (for a candidate,
 * `instanceType` → real-time, `serverless` → serverless), when exactly one fits best. None when
 * the input fits no branch better than another (both discriminating fields, neither, not an object).
 */
function meantBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  const distances = branches.map(shapeDistance);
  const best = Math.min(...distances);
  const closest = branches.filter((_branch, index) => distances[index] === best);
  return closest.length === 1 ? closest[0] : undefined;
}

/** Where a custom rule says the offending character of its given string is (`params.at`). */
function focusOf(issue: Issue): number | undefined {
  if (issue.code !== 'custom') return undefined;
  const at: unknown = issue.params?.at;
  return typeof at === 'number' ? at : undefined;
}

/**
 * What a custom rule says was given instead of the value (`params.given`): a rule that refuses a
 * secret names what it found without printing it.
 */
function shownGiven(issue: Issue): string | undefined {
  if (issue.code !== 'custom') return undefined;
  const given: unknown = issue.params?.given;
  return typeof given === 'string' ? given : undefined;
}

function flatten(issue: Issue, base: readonly PropertyKey[]): InputIssue[] {
  const path = [...base, ...issue.path];
  if (issue.code === 'invalid_union') {
    const branch = meantBranch(issue.errors);
    if (branch !== undefined && branch.length > 0) return branch.flatMap((inner) => flatten(inner, path));
  }
  if (issue.code === 'invalid_key') {
    // The rule the key broke, not zod's "Invalid key in record"; the field names the key.
    return issue.issues.map((inner) => ({
      field: formatFieldPath(path),
      given: describeGiven(issue.input, focusOf(inner)),
      expected: expectedFrom(inner.message),
    }));
  }
  if (issue.code === 'unrecognized_keys') {
    const special = issue.keys.filter((key) => SPECIAL_KEYS.includes(key));
    const unknown = issue.keys.filter((key) => !SPECIAL_KEYS.includes(key));
    return [
      ...special.map((key) => specialKeyIssue([...path, key])),
      ...(unknown.length === 0
        ? []
        : [
            {
              field: formatFieldPath(path),
              given: `unknown field(s) ${unknown.map((key) => JSON.stringify(key)).join(', ')}`,
              expected: 'only the documented fields (check the spelling)',
            },
          ]),
    ];
  }
  const given = shownGiven(issue) ?? describeGiven(issue.input, focusOf(issue));
  if (issue.code === 'invalid_type' && typeof issue.input === 'number' && !Number.isFinite(issue.input)) {
    return [{ field: formatFieldPath(path), given, expected: `a finite ${issue.expected}` }];
  }
  return [{ field: formatFieldPath(path), given, expected: expectedFrom(issue.message) }];
}

/**
 * zod's issues as input issues: a union reports the branch the input meant and that branch's
 * failing rules at their own fields; a refused map key reports its own rule. `root` prefixes every
 * field (e.g. `['loadPlan']` when a plan is parsed on its own).
 */
export function toInputIssues(error: z.ZodError, root: readonly PropertyKey[] = []): InputIssue[] {
  const issues = dedupe(error.issues.flatMap((issue) => flatten(issue, root)));
  if (issues.length > 0) return issues;
  // Never an error without a reason: a shape flatten() cannot read is reported as zod says it.
  return error.issues.map((issue) => ({
    field: formatFieldPath([...root, ...issue.path]),
    given: describeGiven(issue.input),
    expected: expectedFrom(issue.message),
  }));
}

function specialKeyIssue(path: readonly PropertyKey[]): InputIssue {
  const key = path[path.length - 1];
  return { field: formatFieldPath(path), given: describeGiven(key), expected: SPECIAL_KEY_EXPECTED };
}

/** A value the special-key scan has still to visit; its path is rebuilt only for an issue. */
interface ScanNode {
  readonly value: unknown;
  readonly parent: ScanNode | undefined;
  readonly key: PropertyKey | undefined;
}

function scanPath(node: ScanNode, root: readonly PropertyKey[]): PropertyKey[] {
  const keys: PropertyKey[] = [];
  for (let at: ScanNode | undefined = node; at?.key !== undefined; at = at.parent) keys.push(at.key);
  return [...root, ...keys.reverse()];
}

/**
 * Every special key (`SPECIAL_KEYS`) anywhere in a parsed JSON document, as input issues. Checked
 * on the raw input because zod's records drop an own `__proto__` key without an issue. Linear in
 * the document: each value is visited once and keeps a link to its parent, and only a reported
 * key's path is rebuilt (copying the path at every level would cost the square of the depth).
 */
export function specialKeyIssues(data: unknown, root: readonly PropertyKey[] = []): InputIssue[] {
  const issues: InputIssue[] = [];
  const seen = new Set<object>();
  // Breadth first, so the issues come in the order of the document's top-level fields.
  const pending: ScanNode[] = [{ value: data, parent: undefined, key: undefined }];
  for (let index = 0; index < pending.length; index += 1) {
    const node = pending[index];
    if (node === undefined) break;
    const { value } = node;
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      value.forEach((item: unknown, at) => pending.push({ value: item, parent: node, key: at }));
      continue;
    }
    for (const key of Object.keys(value)) {
      if (SPECIAL_KEYS.includes(key)) {
        issues.push(specialKeyIssue([...scanPath(node, root), key]));
      } else {
        pending.push({ value: (value as Record<string, unknown>)[key], parent: node, key });
      }
    }
  }
  return issues;
}

/**
 * The bounds of `INPUT_BOUNDS` that `data` crosses, as input issues (none, or the first one met,
 * with the field where it is crossed). Every entry checks them before anything else reads the
 * input: the first states and the CLIs through `parseOrThrow`, the run API on the whole body, the
 * local CLIs on the file. `root` prefixes the field (e.g. `['input']` inside an API body).
 */
export function inputBoundIssues(data: unknown, root: readonly PropertyKey[] = []): InputIssue[] {
  const crossing = firstBoundCrossing(data);
  if (crossing === undefined) return [];
  if (crossing.bound === 'size') {
    return [
      {
        field: formatFieldPath(root),
        given: `more than ${INPUT_BOUNDS.maxJsonBytes} bytes of JSON`,
        expected:
          `at most ${INPUT_BOUNDS.maxJsonBytes} bytes (Step Functions' execution input quota); ` +
          'put large lists (payloads, inputs) in S3 and name them by URI or prefix',
      },
    ];
  }
  return [depthIssue([...root, ...crossing.path], crossing.path.length + 1, crossing.found)];
}

/**
 * `inputBoundIssues`' depth bound for JSON text not parsed yet (an API body, a CLI's input file),
 * checked before JSON.parse builds every level. `root` is where the run input sits in the text
 * (`['input']` in an API body): a crossing inside it is reported at the input's own field, as the
 * first state reports it. The size bound needs the parsed value: `inputBoundIssues` checks it.
 */
export function jsonTextBoundIssues(text: string, root: readonly PropertyKey[] = []): InputIssue[] {
  const crossing = firstTextDepthCrossing(text, INPUT_BOUNDS.maxDepth + root.length);
  if (crossing === undefined) return [];
  const inside = root.every((key, index) => crossing.path[index] === key);
  const path = inside ? crossing.path.slice(root.length) : crossing.path;
  return [depthIssue(path, path.length + 1, crossing.found)];
}

function depthIssue(path: readonly PropertyKey[], level: number, found: string): InputIssue {
  return {
    field: formatFieldPath(path),
    given: `${found} at nesting level ${level}`,
    expected:
      `at most ${INPUT_BOUNDS.maxDepth} levels of nested objects and arrays (no run input field ` +
      'is nested more than a few levels deep)',
  };
}

function dedupe(issues: readonly InputIssue[]): InputIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = JSON.stringify([issue.field, issue.given, issue.expected]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Parses `data` with `schema`, or throws `InvalidRunInputError` listing every problem with the
 * field, what was given and what was expected. Used by the first state, the API and the CLI alike.
 * `root` names where `data` sits in a larger document (e.g. `['loadPlan']`).
 */
export function parseOrThrow<Schema extends z.ZodType>(
  schema: Schema,
  data: unknown,
  root: readonly PropertyKey[] = [],
): z.output<Schema> {
  // Before any walk: the scan, zod and the formatter then see a value of bounded depth and size.
  const bounds = inputBoundIssues(data, root);
  if (bounds.length > 0) throw new InvalidRunInputError(bounds);
  const special = specialKeyIssues(data, root);
  const result = schema.safeParse(data, { reportInput: true });
  const issues = dedupe([...special, ...(result.success ? [] : toInputIssues(result.error, root))]);
  if (!result.success || issues.length > 0) throw new InvalidRunInputError(issues);
  return result.data;
}
