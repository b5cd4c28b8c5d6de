import { NormalizedSchema } from '@smithy/core/schema';
import type { ConstraintTable, ValueConstraint } from './constraints/constraint-types.js';
import { PROJECT_CONSTRAINTS } from './constraints/project-constraints.js';
import { SERVICE_CONSTRAINTS } from './constraints/service-constraints.generated.js';

/**
 * Checks a command's input against what the service declares: the SDK's own schema (members,
 * required members, types: every `@aws-sdk` v3 command carries `command.schema`, the operation
 * schema `[9, namespace, name, traits, input, output]`) and the constraint tables (patterns,
 * lengths, ranges, enums) the SDK does not carry.
 */

export interface Violation {
  readonly operation: string;
  /** `Operation.Member.Member[0]`, e.g. `CreateCompilationJob.OutputConfig.TargetDevice`. */
  readonly path: string;
  readonly rule: string;
  /** The given value as JSON, truncated. */
  readonly given: string;
  readonly source: string;
}

/** What `command.schema` holds: `[9, namespace, name, traits, input, output]`. */
export type OperationSchema = readonly [9, string, string, unknown, unknown, unknown];

/** What the validator needs of a command: its operation schema and its input. */
export interface ValidatedCommand {
  readonly schema: OperationSchema;
  readonly input: unknown;
}

const GIVEN_MAX_CHARS = 80;

/**
 * A structure schema `[3, namespace, name, traits, memberNames, memberSchemas, requiredCount?]`:
 * the first `requiredCount` members are the required ones (checked against the Smithy models'
 * `smithy.api#required` by `constraint-table.test.ts`). `@smithy/core`'s NormalizedSchema walks
 * members and types but does not expose this count.
 */
function requiredMembersOf(schema: NormalizedSchema): readonly string[] {
  const raw = schema.getSchema() as unknown as readonly unknown[];
  const names = raw[4] as readonly string[];
  const requiredCount = typeof raw[6] === 'number' ? raw[6] : 0;
  return names.slice(0, requiredCount);
}

export function isOperationSchema(value: unknown): value is OperationSchema {
  return Array.isArray(value) && value[0] === 9 && typeof value[2] === 'string';
}

export function validateCommand(
  command: ValidatedCommand,
  tables: readonly ConstraintTable[] = [SERVICE_CONSTRAINTS, PROJECT_CONSTRAINTS],
): Violation[] {
  const [, , operation, , input] = command.schema;
  const violations: Violation[] = [];
  new Walker(operation, tables, violations).value(
    command.input,
    NormalizedSchema.of(input as never),
    operation,
  );
  return violations;
}

/** `CreateCompilationJob.OutputConfig.TargetDevice: rule; given "ml_g5" (source: …)`. */
export function formatViolation(violation: Violation): string {
  return `${violation.path}: ${violation.rule}; given ${violation.given} (source: ${violation.source})`;
}

export function givenText(value: unknown): string {
  // JSON.stringify gives undefined for undefined (a missing member).
  const json = JSON.stringify(value) as string | undefined;
  const text = value instanceof Date ? value.toISOString() : (json ?? String(value));
  return text.length > GIVEN_MAX_CHARS ? `${text.slice(0, GIVEN_MAX_CHARS)}…` : text;
}

const patterns = new Map<string, RegExp>();

/**
 * Java regex syntax that some AWS models use although Smithy patterns are meant to be ECMA 262
 * (e.g. Application Auto Scaling's `PolicyName` `^\p{Print}+$`, SageMaker Runtime's `InferenceId`
 * `\A\S[\p{Print}]*\z`): the POSIX classes are US-ASCII, as Java reads them without
 * UNICODE_CHARACTER_CLASS, and `\A`, `\z`, `\Z` anchor the input (java.util.regex.Pattern).
 */
const JAVA_CLASS_RANGES: Readonly<Record<string, string>> = {
  Print: '\\x20-\\x7E',
  Graph: '\\x21-\\x7E',
  Alnum: 'A-Za-z0-9',
  Alpha: 'A-Za-z',
  ASCII: '\\x00-\\x7F',
};
const JAVA_ANCHORS: Readonly<Record<string, string>> = { A: '^', z: '$', Z: '$' };

/** The pattern in ECMA 262 syntax: Java's POSIX classes and anchors translated, inside or outside `[…]`. */
export function toEcmaPattern(pattern: string): string {
  let result = '';
  let inClass = false;
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern.charAt(index);
    if (char === '\\') {
      const next = pattern.charAt(index + 1);
      const posix = next === 'p' ? /^\{([A-Za-z]+)\}/.exec(pattern.slice(index + 2)) : null;
      const range = posix?.[1] === undefined ? undefined : JAVA_CLASS_RANGES[posix[1]];
      if (posix !== null && range !== undefined) {
        result += inClass ? range : `[${range}]`;
        index += 1 + posix[0].length;
        continue;
      }
      const anchor = inClass ? undefined : JAVA_ANCHORS[next];
      result += anchor ?? `${char}${next}`;
      index += 1;
      continue;
    }
    if (char === '[' && !inClass) inClass = true;
    else if (char === ']' && inClass) inClass = false;
    result += char;
  }
  return result;
}

/** Smithy patterns are ECMA 262 (`\p{L}` needs the `u` flag), not implicitly anchored. */
function compiled(pattern: string): RegExp {
  let regex = patterns.get(pattern);
  if (regex === undefined) {
    const source = toEcmaPattern(pattern);
    try {
      regex = new RegExp(source, 'u');
    } catch (error) {
      // Without `u`, `\p{…}` would silently match the letters "p{…}": refuse rather than guess.
      if (source.includes('\\p{')) {
        throw new Error(
          `Constraint pattern ${pattern}: got a property class JavaScript does not know, expected one to translate in JAVA_CLASS_RANGES`,
          { cause: error },
        );
      }
      // Escapes the `u` flag refuses (e.g. `\_`) are identity escapes without it.
      regex = new RegExp(source);
    }
    patterns.set(pattern, regex);
  }
  return regex;
}

class Walker {
  constructor(
    private readonly operation: string,
    private readonly tables: readonly ConstraintTable[],
    private readonly violations: Violation[],
  ) {}

  private report(path: string, rule: string, given: unknown, source: string): void {
    this.violations.push({ operation: this.operation, path, rule, given: givenText(given), source });
  }

  value(
    value: unknown,
    schema: NormalizedSchema,
    path: string,
    constraints: readonly { readonly constraint: ValueConstraint; readonly source: string }[] = [],
  ): void {
    if (value === undefined || value === null) return;
    const sdkSource = `the SDK's schema of ${schema.getName(true) ?? path}`;
    const wrongType = (expected: string): void => {
      this.report(path, `expected ${expected}, got ${describeType(value)}`, value, sdkSource);
    };
    if (schema.isStructSchema()) {
      if (!isPlainObject(value)) {
        wrongType('a structure (object)');
        return;
      }
      this.structure(value, schema, path);
      return;
    }
    if (schema.isListSchema()) {
      if (!Array.isArray(value)) {
        wrongType('a list (array)');
        return;
      }
      this.collection(value.length, path, value, constraints);
      const element = schema.getValueSchema();
      value.forEach((item, index) => {
        this.value(item, element, `${path}[${index}]`, nested(constraints, 'member'));
      });
      return;
    }
    if (schema.isMapSchema()) {
      if (!isPlainObject(value)) {
        wrongType('a map (object)');
        return;
      }
      const entries = Object.entries(value).filter(([, entry]) => entry !== undefined);
      this.collection(entries.length, path, value, constraints);
      for (const [key, entry] of entries) {
        this.scalar(key, `${path}.${key} (key)`, nested(constraints, 'key'));
        this.value(entry, schema.getValueSchema(), `${path}.${key}`, nested(constraints, 'value'));
      }
      return;
    }
    if (schema.isStringSchema()) {
      if (typeof value !== 'string') {
        wrongType('a string');
        return;
      }
      this.scalar(value, path, constraints);
      return;
    }
    if (schema.isNumericSchema()) {
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        wrongType('a number');
        return;
      }
      this.scalar(value, path, constraints);
      return;
    }
    if (schema.isBooleanSchema()) {
      if (typeof value !== 'boolean') wrongType('a boolean');
      return;
    }
    if (schema.isTimestampSchema()) {
      if (!(value instanceof Date) || Number.isNaN(value.getTime())) wrongType('a timestamp (Date)');
      return;
    }
    if (schema.isBlobSchema()) {
      // A streaming blob may also be a stream or a Blob; a plain blob is bytes or a string.
      const ok =
        typeof value === 'string' ||
        value instanceof Uint8Array ||
        (schema.isStreaming() && typeof value === 'object');
      if (!ok) wrongType('a blob (Uint8Array or string)');
    }
    // Documents, big numbers: anything the SDK serializes.
  }

  private structure(value: Readonly<Record<string, unknown>>, schema: NormalizedSchema, path: string): void {
    const structureId = schema.getName(true) ?? path;
    const members = membersOf(schema);
    const sdkSource = `the SDK's schema of ${structureId}`;
    for (const [name, member] of Object.entries(value)) {
      if (member !== undefined && !(name in members)) {
        this.report(
          `${path}.${name}`,
          `unknown member of ${schema.getName() ?? structureId}`,
          member,
          sdkSource,
        );
      }
    }
    for (const name of requiredMembersOf(schema)) {
      if (value[name] === undefined || value[name] === null) {
        this.report(`${path}.${name}`, 'required member missing', value[name], sdkSource);
      }
    }
    if (schema.isUnionSchema()) {
      const set = Object.keys(members).filter((name) => value[name] !== undefined);
      if (set.length !== 1)
        this.report(path, `a union takes exactly one member, got ${set.length}`, value, sdkSource);
    }
    for (const [name, memberSchema] of Object.entries(members)) {
      const memberId = `${structureId}$${name}`;
      const constraints = this.tables.flatMap((table) => {
        const entry = table[memberId];
        return entry === undefined ? [] : [{ constraint: entry, source: entry.source }];
      });
      this.value(value[name], memberSchema, `${path}.${name}`, constraints);
    }
  }

  private collection(
    size: number,
    path: string,
    value: unknown,
    constraints: readonly { readonly constraint: ValueConstraint; readonly source: string }[],
  ): void {
    for (const { constraint, source } of constraints) {
      const rule = outOfBounds(size, constraint.length, 'entries');
      if (rule !== undefined) this.report(path, rule, value, source);
    }
  }

  private scalar(
    value: string | number,
    path: string,
    constraints: readonly { readonly constraint: ValueConstraint; readonly source: string }[],
  ): void {
    for (const { constraint, source } of constraints) {
      if (typeof value === 'string') {
        if (constraint.enum !== undefined && !constraint.enum.includes(value)) {
          this.report(path, 'not one of the values of the enum the service declares', value, source);
        }
        if (constraint.pattern !== undefined && !compiled(constraint.pattern).test(value)) {
          this.report(path, `does not match the pattern ${constraint.pattern}`, value, source);
        }
        // Smithy's length of a string counts Unicode code points, which is what spreading counts.
        // eslint-disable-next-line @typescript-eslint/no-misused-spread
        const rule = outOfBounds([...value].length, constraint.length, 'characters');
        if (rule !== undefined) this.report(path, rule, value, source);
      } else {
        const rule = outOfBounds(value, constraint.range, '');
        if (rule !== undefined) this.report(path, rule.replace('length', 'value'), value, source);
      }
    }
  }
}

function nested(
  constraints: readonly { readonly constraint: ValueConstraint; readonly source: string }[],
  part: 'member' | 'key' | 'value',
): { readonly constraint: ValueConstraint; readonly source: string }[] {
  return constraints.flatMap(({ constraint, source }) => {
    const inner = constraint[part];
    return inner === undefined ? [] : [{ constraint: inner, source }];
  });
}

function outOfBounds(
  size: number,
  bounds: { readonly min?: number; readonly max?: number } | undefined,
  unit: string,
): string | undefined {
  if (bounds === undefined) return undefined;
  const { min, max } = bounds;
  if ((min === undefined || size >= min) && (max === undefined || size <= max)) return undefined;
  const expected =
    min !== undefined && max !== undefined
      ? `between ${min} and ${max}`
      : min !== undefined
        ? `at least ${min}`
        : `at most ${String(max)}`;
  return `length ${size}, expected ${expected}${unit === '' ? '' : ` ${unit}`}`;
}

/** A structure's members by name (NormalizedSchema's checked iterator). */
export function membersOf(schema: NormalizedSchema): Readonly<Record<string, NormalizedSchema>> {
  return Object.fromEntries(schema.structIterator());
}

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function describeType(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a Date';
  return `a ${typeof value}`;
}
