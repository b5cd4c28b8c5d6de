import type { z } from 'zod';
import { type InputIssue, InvalidRunInputError } from './errors.js';

const MAX_GIVEN_LENGTH = 80;

/** Renders a value as the user wrote it, short enough for an error line. */
export function describeGiven(value: unknown): string {
  if (value === undefined) return 'nothing';
  // JSON.stringify gives undefined for functions and symbols, whatever its declared type says.
  const json = JSON.stringify(value) as string | undefined;
  const text = json ?? typeof value;
  return text.length > MAX_GIVEN_LENGTH ? `${text.slice(0, MAX_GIVEN_LENGTH - 1)}…` : text;
}

const PLAIN_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * `['candidates', 2, 'instanceType']` → `candidates[2].instanceType`; a user-chosen name that is
 * not a plain identifier is quoted, so the field reads unambiguously: `tags["team:ml"]`,
 * `pricing.usdPerHour["ml.c5.xlarge"]`.
 */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let field = '';
  for (const key of path) {
    if (typeof key === 'number') field += `[${key}]`;
    else if (typeof key === 'string' && !PLAIN_NAME.test(key)) field += `[${JSON.stringify(key)}]`;
    else field += field === '' ? String(key) : `.${String(key)}`;
  }
  return field === '' ? '(input)' : field;
}

/** zod's messages start with a category ("Too small: expected …"); keep only what was expected. */
function expectedFrom(message: string): string {
  return message
    .replace(
      /^(Invalid input|Too small|Too big|Invalid option|Invalid string|Unrecognized key\(s\) in object): /,
      '',
    )
    .replace(/^expected /, '')
    .replace(/, received \w+$/, '');
}

export function toInputIssues(error: z.ZodError): InputIssue[] {
  return error.issues.map((issue) => {
    const field = formatFieldPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      return {
        field,
        given: `unknown field(s) ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}`,
        expected: 'only the documented fields (check the spelling)',
      };
    }
    return { field, given: describeGiven(issue.input), expected: expectedFrom(issue.message) };
  });
}

/**
 * Parses `data` with `schema`, or throws `InvalidRunInputError` listing every problem with the
 * field, what was given and what was expected. Used by the first state, the API and the CLI alike.
 */
export function parseOrThrow<Schema extends z.ZodType>(schema: Schema, data: unknown): z.output<Schema> {
  const result = schema.safeParse(data, { reportInput: true });
  if (!result.success) throw new InvalidRunInputError(toInputIssues(result.error));
  return result.data;
}
