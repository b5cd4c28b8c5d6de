/**
 * Request and response bodies of `POST /invocations`.
 *
 * Requests:
 * - `application/json`: `{"instances": [sample, ...]}` (a list of samples) or `{"inputs": x}` where
 *   `x` is one sample or a batch of samples; a sample is nested arrays of numbers in the model's
 *   sample shape (e.g. [3][32][32]).
 * - `application/octet-stream`: N samples of little-endian float32, concatenated (N × sampleSize × 4
 *   bytes).
 * Responses, chosen by `Accept`: `application/json` (default) `{"predictions": [row, ...]}` with one
 * row per sample, or `application/octet-stream` with the rows as little-endian float32 and their
 * shape in the `X-Output-Shape` header.
 */
import type { InputSignature } from './model-signature.js';

export const JSON_CONTENT_TYPE = 'application/json';
export const RAW_CONTENT_TYPE = 'application/octet-stream';
export type PayloadFormat = 'json' | 'raw';

/** A bad request, answered with `statusCode` and a JSON body naming what was given and expected. */
export class PayloadError extends Error {
  override readonly name = 'PayloadError';

  constructor(
    readonly statusCode: 400 | 406 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

/** Samples of one request, concatenated in a buffer of their own. */
export interface ParsedSamples {
  readonly samples: Float32Array;
  readonly count: number;
}

const SUPPORTED_TYPES = `${JSON_CONTENT_TYPE} or ${RAW_CONTENT_TYPE}`;

export function requestFormat(contentType: string | undefined): PayloadFormat {
  const mediaType = mediaTypeOf(contentType);
  if (mediaType === JSON_CONTENT_TYPE) return 'json';
  if (mediaType === RAW_CONTENT_TYPE) return 'raw';
  throw new PayloadError(
    415,
    `Unsupported Content-Type: got ${contentType === undefined ? 'none' : JSON.stringify(contentType)}, expected ${SUPPORTED_TYPES}`,
  );
}

/** The response format from `Accept`: the first supported type listed, JSON when any will do. */
export function responseFormat(accept: string | undefined): PayloadFormat {
  if (accept === undefined || accept.trim() === '') return 'json';
  for (const entry of accept.split(',')) {
    const mediaType = mediaTypeOf(entry);
    if (mediaType === JSON_CONTENT_TYPE || mediaType === '*/*' || mediaType === 'application/*') {
      return 'json';
    }
    if (mediaType === RAW_CONTENT_TYPE) return 'raw';
  }
  throw new PayloadError(
    406,
    `Unsupported Accept: got ${JSON.stringify(accept)}, expected ${SUPPORTED_TYPES}`,
  );
}

export function parseSamples(format: PayloadFormat, body: Buffer, input: InputSignature): ParsedSamples {
  const parsed = format === 'json' ? parseJsonSamples(body, input) : parseRawSamples(body, input);
  if (input.batchDimension !== 'dynamic' && parsed.count !== input.batchDimension) {
    throw new PayloadError(
      400,
      `Got ${parsed.count} samples, expected exactly ${input.batchDimension}: model input "${input.name}" has a fixed batch dimension`,
    );
  }
  return parsed;
}

export function parseRawSamples(body: Buffer, input: InputSignature): ParsedSamples {
  const sampleBytes = input.sampleSize * 4;
  if (body.length === 0 || body.length % sampleBytes !== 0) {
    throw new PayloadError(
      400,
      `Raw body has ${body.length} bytes: expected a positive multiple of ${sampleBytes} bytes (N samples of ${describeSample(input)} little-endian float32)`,
    );
  }
  const samples = new Float32Array(body.length / 4);
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  for (let i = 0; i < samples.length; i += 1) samples[i] = view.getFloat32(i * 4, true);
  return { samples, count: body.length / sampleBytes };
}

export function parseJsonSamples(body: Buffer, input: InputSignature): ParsedSamples {
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new PayloadError(
      400,
      `Body is not valid JSON (${error instanceof Error ? error.message : String(error)}): expected {"inputs": ...} or {"instances": [...]}`,
    );
  }
  if (!isRecord(document) || 'inputs' in document === 'instances' in document) {
    throw new PayloadError(
      400,
      `JSON body ${describeValue(document)}: expected an object with exactly one of "inputs" (a sample or a batch) or "instances" (a list of samples), each sample of ${describeSample(input)}`,
    );
  }
  if ('instances' in document) {
    return flattenBatch(document.instances, 'instances', input);
  }
  const inputs = document.inputs;
  // `inputs` holds one sample when it nests exactly as deep as a sample, else a batch.
  return nestingDepth(inputs) === input.sampleShape.length
    ? { samples: flattenSample(inputs, 'inputs', input), count: 1 }
    : flattenBatch(inputs, 'inputs', input);
}

/** Rows of the output as nested arrays, one entry per sample. */
export function formatJsonResponse(output: Float32Array, dims: readonly number[]): string {
  return JSON.stringify({ predictions: nest(output, dims, 0, 0).value });
}

/** The rows as little-endian float32 bytes. */
export function formatRawResponse(output: Float32Array): Buffer {
  const bytes = Buffer.alloc(output.length * 4);
  output.forEach((value, index) => {
    bytes.writeFloatLE(value, index * 4);
  });
  return bytes;
}

function flattenBatch(value: unknown, path: string, input: InputSignature): ParsedSamples {
  if (!Array.isArray(value) || value.length === 0) {
    throw new PayloadError(
      400,
      `${path}: got ${describeValue(value)}, expected a non-empty list of samples of ${describeSample(input)}`,
    );
  }
  const samples = new Float32Array(value.length * input.sampleSize);
  value.forEach((sample: unknown, index) => {
    samples.set(flattenSample(sample, `${path}[${index}]`, input), index * input.sampleSize);
  });
  return { samples, count: value.length };
}

function flattenSample(value: unknown, path: string, input: InputSignature): Float32Array {
  const values = new Float32Array(input.sampleSize);
  let written = 0;
  const walk = (node: unknown, nodePath: string, depth: number) => {
    const expectedLength = input.sampleShape[depth];
    if (expectedLength === undefined) {
      if (typeof node !== 'number' || !Number.isFinite(node)) {
        throw new PayloadError(400, `${nodePath}: got ${describeValue(node)}, expected a finite number`);
      }
      values[written] = node;
      written += 1;
      return;
    }
    if (!Array.isArray(node) || node.length !== expectedLength) {
      throw new PayloadError(
        400,
        `${nodePath}: got ${describeValue(node)}, expected an array of ${expectedLength} (model input "${input.name}" takes samples of ${describeSample(input)})`,
      );
    }
    node.forEach((child: unknown, index) => {
      walk(child, `${nodePath}[${index}]`, depth + 1);
    });
  };
  walk(value, path, 0);
  return values;
}

function nestingDepth(value: unknown): number {
  let depth = 0;
  let node = value;
  while (Array.isArray(node)) {
    depth += 1;
    node = node[0];
  }
  return depth;
}

function nest(
  values: Float32Array,
  dims: readonly number[],
  depth: number,
  offset: number,
): { value: unknown; size: number } {
  const length = dims[depth];
  if (length === undefined) return { value: values[offset], size: 1 };
  const items: unknown[] = [];
  let consumed = 0;
  for (let i = 0; i < length; i += 1) {
    const child = nest(values, dims, depth + 1, offset + consumed);
    items.push(child.value);
    consumed += child.size;
  }
  return { value: items, size: consumed };
}

function mediaTypeOf(header: string | undefined): string | undefined {
  return header?.split(';')[0]?.trim().toLowerCase();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeSample(input: InputSignature): string {
  return `shape [${input.sampleShape.join(', ')}]`;
}

/** A short description of a JSON value for error messages (never the whole payload). */
function describeValue(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object with keys [${Object.keys(value).join(', ')}]`;
  if (typeof value === 'string') {
    return `the string ${JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value)}`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return typeof value;
}
