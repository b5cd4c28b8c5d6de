import { type JsonSchema, JsonSchemaType, JsonSchemaVersion } from 'aws-cdk-lib/aws-apigateway';
import { z } from 'zod';
import { RUN_ID_PATTERN } from '../../core/contracts/index.js';

/**
 * Request models of the run API, generated at synth time from the run-input zod schemas, so the
 * API checks the same shape the first state does (one schema: ARCHITECTURE.md, "Contracts").
 *
 * API Gateway models are JSON Schema draft 4 (API Gateway developer guide, "Data models for REST
 * APIs"). zod 4 writes draft 4 itself (`z.toJSONSchema(…, { target: 'draft-04' })`: `const` as a
 * one-value `enum`, boolean `exclusiveMinimum`). What draft 4 cannot express is left to the
 * workflows' first states, which validate everything again with field-named errors:
 *
 * - cross-field rules (`superRefine`, `refine`): e.g. at most 40 load workers, `existingEndpoint`
 *   excludes `candidates`, a compiled candidate names a listed target, exactly one of `inputs` and
 *   `inputPrefix`;
 * - rules on record keys (`propertyNames` is draft 6; zod leaves it out): e.g. environment
 *   variable names;
 * - transforms and custom checks (`unrepresentable: 'any'`: anything is accepted there).
 *
 * `keepDraft4Keywords` then removes whatever newer keyword or format could still appear (none does
 * in today's schemas; a test keeps it so). The input side is converted (`io: 'input'`): fields with
 * defaults are optional. Shared sub-schemas are inlined (`reused: 'inline'`): a model's `$ref` may
 * only name another model of the API, never a local definition.
 */

/** JSON Schema keywords newer than draft 4, which API Gateway's validator does not know. */
const NEWER_THAN_DRAFT_4: ReadonlySet<string> = new Set([
  'propertyNames',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
  'prefixItems',
  'contains',
  'minContains',
  'maxContains',
  '$defs',
  '$id',
  '$anchor',
  '$comment',
  'examples',
  'readOnly',
  'writeOnly',
  'deprecated',
]);

/** The formats draft 4 defines; zod's other formats (uuid, date, …) keep their `pattern`. */
const DRAFT_4_FORMATS: ReadonlySet<string> = new Set([
  'date-time',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uri',
]);

/** Keywords whose value is one subschema. */
const SUBSCHEMA_KEYWORDS = ['additionalProperties', 'additionalItems', 'items', 'not'] as const;
/** Keywords whose value is a list of subschemas. */
const SUBSCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'items'] as const;
/** Keywords whose value maps user-chosen names to subschemas. */
const SUBSCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', 'definitions', 'dependencies'] as const;

export interface ApiGatewayModelSchema {
  /** The draft-4 schema, without `$schema` (it is nested into a request model). */
  readonly schema: Record<string, unknown>;
  /** JSON pointers of what was removed, e.g. `/properties/tags/propertyNames`. */
  readonly removed: readonly string[];
}

/** `schema`'s input side as a draft-4 schema API Gateway accepts, and what could not be kept. */
export function toApiGatewayModelSchema(schema: z.ZodType): ApiGatewayModelSchema {
  const generated = z.toJSONSchema(schema, {
    target: 'draft-04',
    io: 'input',
    reused: 'inline',
    cycles: 'throw',
    // Transforms and custom checks have no JSON Schema: accept anything there, the first state checks.
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  const draft4 = keepDraft4Keywords(generated);
  const { $schema: _draft, ...converted } = draft4.schema;
  const text = JSON.stringify(converted);
  if (text.includes('"$ref"')) {
    throw new Error(
      `Run API model: got a schema with "$ref" after inlining, expected none: API Gateway resolves a ` +
        `model's $ref only to another model of the API (recursive zod schemas cannot be models)`,
    );
  }
  return { schema: converted, removed: draft4.removed };
}

/**
 * A copy of `schema` with only draft-4 keywords: newer keywords and formats removed (and listed),
 * `const` written as a one-value `enum`. Names under `properties` and the like are left alone.
 */
export function keepDraft4Keywords(schema: Record<string, unknown>): ApiGatewayModelSchema {
  const removed: string[] = [];
  return { schema: toDraft4(schema, '', removed), removed };
}

function toDraft4(node: unknown, pointer: string, removed: string[]): Record<string, unknown> {
  if (!isRecord(node)) return {};
  const result: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(node)) {
    const at = `${pointer}/${keyword}`;
    if (NEWER_THAN_DRAFT_4.has(keyword)) {
      removed.push(at);
    } else if (keyword === 'const') {
      result.enum = [value];
    } else if (keyword === 'format' && typeof value === 'string' && !DRAFT_4_FORMATS.has(value)) {
      removed.push(at);
    } else if ((SUBSCHEMA_LIST_KEYWORDS as readonly string[]).includes(keyword) && Array.isArray(value)) {
      result[keyword] = value.map((item, index) => toDraft4(item, `${at}/${index}`, removed));
    } else if ((SUBSCHEMA_KEYWORDS as readonly string[]).includes(keyword) && isRecord(value)) {
      result[keyword] = toDraft4(value, at, removed);
    } else if ((SUBSCHEMA_MAP_KEYWORDS as readonly string[]).includes(keyword) && isRecord(value)) {
      result[keyword] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [
          name,
          Array.isArray(child) ? child : toDraft4(child, `${at}/${name}`, removed),
        ]),
      );
    } else {
      result[keyword] = value;
    }
  }
  return result;
}

/**
 * The model of `POST /runs` and `POST /async-runs`: `{ "runId"?: string, "input": <run input> }`,
 * nothing else. The run id's pattern is the execution-name rule (RUN_ID_PATTERN).
 */
export function startRunRequestSchema(title: string, runInput: z.ZodType): JsonSchema {
  const input = toApiGatewayModelSchema(runInput).schema;
  return {
    schema: JsonSchemaVersion.DRAFT4,
    title,
    type: JsonSchemaType.OBJECT,
    additionalProperties: false,
    required: ['input'],
    properties: {
      runId: {
        type: JsonSchemaType.STRING,
        pattern: RUN_ID_PATTERN,
        description: 'Becomes the execution name: a retried request with the same id starts no second run',
      },
      // Standard keyword names: CDK passes them through unchanged (its JsonSchemaMapper renames only
      // `schema` and `ref`, neither of which zod writes).
      input,
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
