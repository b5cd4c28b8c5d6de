/**
 * The JSON Schemas of the two run inputs, generated from their zod schemas (the ones the first
 * states, the run API and the CLIs parse with, less the rules that consult the catalog, which a
 * JSON Schema cannot carry: core/planning/run-input-check.ts) and the field texts of
 * `core/contracts/run-input-descriptions.ts`. They are committed under `schemas/` so that an
 * editor completes and checks an input that names its schema (`"$schema":
 * "../schemas/run-input.schema.json"`, as every example does), and the input reference in docs/ is
 * rendered from the same documents. `npm run schemas` writes both; a test fails when the committed
 * files differ from what the code generates.
 *
 * Draft-07 rather than zod's default 2020-12: it is the draft editors' JSON language services
 * support fully. A JSON Schema cannot say everything the zod schemas check (cross-field rules, the
 * image and Neo tables, object checks): the schema catches typos and types as you type, and the
 * first state still checks the rest before anything is created.
 */
import { z } from 'zod';
import {
  ASYNC_RUN_INPUT_DESCRIPTIONS,
  RUN_INPUT_DESCRIPTIONS,
  isRecord,
  runInputSchema,
  asyncRunInputSchema,
} from '../../core/contracts/index.js';
import { LOCAL_CALIBRATION_FIELD, LOCAL_CALIBRATION_JSON_SCHEMA } from './calibration.js';

export interface InputSchemaSpec {
  /** The file under schemas/. */
  readonly file: string;
  readonly title: string;
  readonly description: string;
  readonly schema: z.ZodType;
  readonly descriptions: Readonly<Record<string, string>>;
  /** Top-level fields a CLI takes out before the workflow parses the rest (local runs only). */
  readonly cliOnlyProperties?: Readonly<Record<string, JsonSchemaNode>>;
}

export const INPUT_SCHEMAS: readonly InputSchemaSpec[] = [
  {
    file: 'run-input.schema.json',
    title: 'Optimization run input',
    description:
      'The input of the optimization workflow: a model, its payload, the candidates to measure, the load plan and the SLA.',
    schema: runInputSchema,
    descriptions: RUN_INPUT_DESCRIPTIONS,
  },
  {
    file: 'async-run-input.schema.json',
    title: 'Async-inference run input',
    description:
      'The input of the async-inference workflow: an async endpoint to deploy or reuse, and the inputs to run through it.',
    schema: asyncRunInputSchema,
    descriptions: ASYNC_RUN_INPUT_DESCRIPTIONS,
  },
  {
    file: 'local-run-input.schema.json',
    title: 'Local optimization run input',
    description:
      'The input of a local optimization run (npm start): the optimization run input, and what only the local CLI reads.',
    schema: runInputSchema,
    descriptions: RUN_INPUT_DESCRIPTIONS,
    cliOnlyProperties: { [LOCAL_CALIBRATION_FIELD]: LOCAL_CALIBRATION_JSON_SCHEMA },
  },
];

export type JsonSchemaNode = Record<string, unknown>;

/** Enums longer than this are counted, not listed, in the reference. */
const MAX_LISTED_VALUES = 12;

/** Calls `visit(path, node)` for every property of the schema, with the paths input errors use. */
export function walkProperties(
  node: unknown,
  visit: (path: string, property: JsonSchemaNode) => void,
  path = '',
): void {
  if (!isRecord(node)) return;
  const properties = node.properties;
  if (isRecord(properties)) {
    for (const [name, property] of Object.entries(properties)) {
      if (!isRecord(property)) continue;
      const childPath = path === '' ? name : `${path}.${name}`;
      visit(childPath, property);
      walkProperties(property, visit, childPath);
    }
  }
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const branches = node[key];
    if (Array.isArray(branches)) for (const branch of branches) walkProperties(branch, visit, path);
  }
  if (isRecord(node.items)) walkProperties(node.items, visit, `${path}[]`);
  if (isRecord(node.additionalProperties) && Object.keys(node.additionalProperties).length > 0) {
    const mapPath = `${path}.*`;
    visit(mapPath, node.additionalProperties);
    walkProperties(node.additionalProperties, visit, mapPath);
  }
}

export interface GeneratedSchema {
  readonly document: JsonSchemaNode;
  /** Fields of the schema without a text, and texts naming no field of it. */
  readonly undescribed: readonly string[];
  readonly unknownDescriptions: readonly string[];
}

/** The JSON Schema of one run input, every field carrying its text. */
export function generateInputSchema(spec: InputSchemaSpec): GeneratedSchema {
  const generated = z.toJSONSchema(spec.schema, {
    io: 'input',
    target: 'draft-7',
    unrepresentable: 'any',
  }) as JsonSchemaNode;
  if (spec.cliOnlyProperties !== undefined && isRecord(generated.properties)) {
    generated.properties = { ...generated.properties, ...spec.cliOnlyProperties };
  }
  const seen = new Set<string>();
  const undescribed = new Set<string>();
  walkProperties(generated, (path, property) => {
    seen.add(path);
    const text =
      spec.descriptions[path] ??
      (typeof property.description === 'string' ? property.description : undefined);
    // A map's values are described by their map, unless they have a text of their own.
    if (text !== undefined) property.description = text;
    else if (!path.endsWith('.*')) undescribed.add(path);
  });
  const document: JsonSchemaNode = {
    $schema: generated.$schema,
    $id: `https://model-serving-optimizer.local/schemas/${spec.file}`,
    title: spec.title,
    description: spec.description,
    ...Object.fromEntries(Object.entries(generated).filter(([key]) => key !== '$schema')),
  };
  return {
    document,
    undescribed: [...undescribed].sort(),
    unknownDescriptions: Object.keys(spec.descriptions).filter((path) => !seen.has(path)),
  };
}

/** The committed file's text: two-space JSON with a final newline, as Prettier writes it. */
export function schemaFileText(document: JsonSchemaNode): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** One row of the input reference: a field, its type, its default and what it means. */
export interface ReferenceRow {
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  readonly defaultValue: string;
  readonly description: string;
}

function typeOf(property: JsonSchemaNode): string {
  if (Array.isArray(property.enum)) {
    // A long enum (SageMaker's instance types) is the schema's to list; editors complete it.
    return property.enum.length > MAX_LISTED_VALUES
      ? `one of ${property.enum.length} values`
      : property.enum.map((value) => JSON.stringify(value)).join(' \\| ');
  }
  if (typeof property.const === 'string') return JSON.stringify(property.const);
  if (typeof property.type === 'string') return property.type === 'array' ? 'array' : property.type;
  if (Array.isArray(property.type)) return property.type.join(' \\| ');
  for (const key of ['anyOf', 'oneOf']) {
    const branches = property[key];
    if (Array.isArray(branches)) {
      const types = [...new Set(branches.filter(isRecord).map(typeOf))];
      return types.join(' \\| ');
    }
  }
  return 'any';
}

/** The rows of one schema's reference, in the schema's order; a path seen in two branches once. */
export function referenceRows(document: JsonSchemaNode): ReferenceRow[] {
  const rows = new Map<string, ReferenceRow>();
  const requiredOf = new Map<string, boolean>();
  const markRequired = (node: unknown, path: string): void => {
    if (!isRecord(node)) return;
    if (Array.isArray(node.required)) {
      for (const name of node.required) {
        if (typeof name === 'string') requiredOf.set(path === '' ? name : `${path}.${name}`, true);
      }
    }
  };
  markRequired(document, '');
  walkProperties(document, (path, property) => {
    markRequired(property, path);
    if (isRecord(property.items)) markRequired(property.items, `${path}[]`);
    // A map's values without a text of their own are what their map says.
    if (rows.has(path) || path === '$schema' || (path.endsWith('.*') && property.description === undefined))
      return;
    rows.set(path, {
      path,
      type: typeOf(property),
      required: false,
      defaultValue: property.default === undefined ? '' : JSON.stringify(property.default),
      description: typeof property.description === 'string' ? property.description : '',
    });
  });
  return [...rows.values()].map((row) => ({ ...row, required: requiredOf.get(row.path) === true }));
}

/** The input reference page, as Markdown, from the generated schemas. */
export function renderInputReference(
  documents: readonly { spec: InputSchemaSpec; document: JsonSchemaNode }[],
): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const sections = documents.map(({ spec, document }) => {
    // A CLI's own schema lists only what it adds to the workflow's.
    const extras = Object.keys(spec.cliOnlyProperties ?? {});
    const rows = referenceRows(document).filter(
      (row) =>
        extras.length === 0 || extras.some((key) => row.path === key || row.path.startsWith(`${key}.`)),
    );
    const lines = rows.map(
      (row) =>
        `| \`${row.path}\`${row.required ? ' (required)' : ''} | ${row.type} | ${row.defaultValue === '' ? '' : `\`${cell(row.defaultValue)}\``} | ${cell(row.description)} |`,
    );
    return [
      `## ${spec.title}`,
      '',
      `${spec.description}${extras.length > 0 ? ' Every field of the optimization run input, and:' : ''} Schema: [schemas/${spec.file}](../schemas/${spec.file}).`,
      '',
      '| field | type | default | meaning |',
      '| ----- | ---- | ------- | ------- |',
      ...lines,
    ].join('\n');
  });
  return [
    '# Run input reference',
    '',
    '<!-- Generated by `npm run schemas` from the zod schemas and core/contracts/run-input-descriptions.ts: edit those, not this page. -->',
    '',
    'Every field of the two run inputs, generated from the schemas the runs parse with. What each',
    'field is for, with examples and the rules beyond types, is in [the run input](run-input.md).',
    'Paths use `[]` for the items of a list and `*` for the values of a map.',
    '',
    ...sections.flatMap((section) => [section, '']),
  ].join('\n');
}
