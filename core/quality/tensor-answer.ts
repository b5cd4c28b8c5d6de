/**
 * A tensor answer read from an endpoint's response body, in the two forms the model server writes
 * (local/model-server/payload.ts): JSON `{"predictions": [row, ...]}` (or a bare nested array), and
 * `application/octet-stream`, little-endian float32 with the shape in the `X-Output-Shape` header.
 *
 * JSON has no NaN nor Infinity, yet Python's `json.dumps` writes them as the bare words `NaN`,
 * `Infinity` and `-Infinity` by default (allow_nan=True,
 * https://docs.python.org/3/library/json.html#json.dump), so a Python container's broken answer reads
 * as non-finite numbers here rather than as an unreadable body.
 */

/** Elements in row-major order and the shape they nest in (`[]` for a single number). */
export interface TensorAnswer {
  readonly shape: readonly number[];
  readonly values: Float64Array;
}

export type DecodedTensor =
  { readonly ok: true; readonly tensor: TensorAnswer } | { readonly ok: false; readonly problem: string };

/** The parts of an HTTP response a tensor is read from. */
export interface TensorResponse {
  readonly body: Uint8Array;
  readonly contentType?: string | undefined;
  /** The model server's `X-Output-Shape`, e.g. `2,10`, for a raw float32 body. */
  readonly outputShape?: string | undefined;
}

const RAW_CONTENT_TYPE = 'application/octet-stream';

export function decodeTensorAnswer(response: TensorResponse): DecodedTensor {
  const mediaType = response.contentType?.split(';')[0]?.trim().toLowerCase();
  return mediaType === RAW_CONTENT_TYPE ? decodeRawFloat32(response) : decodeJsonTensor(response.body);
}

function decodeRawFloat32({ body, outputShape }: TensorResponse): DecodedTensor {
  if (body.length % 4 !== 0) {
    return {
      ok: false,
      problem: `a raw body of ${body.length} bytes: expected a multiple of 4 (little-endian float32 elements)`,
    };
  }
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const values = new Float64Array(body.length / 4);
  for (let i = 0; i < values.length; i += 1) values[i] = view.getFloat32(i * 4, true);
  if (outputShape === undefined || outputShape.trim() === '') {
    return { ok: true, tensor: { shape: [values.length], values } };
  }
  const shape = outputShape.split(',').map((part) => Number(part.trim()));
  if (shape.some((size) => !Number.isInteger(size) || size < 0)) {
    return {
      ok: false,
      problem: `an output shape of ${JSON.stringify(outputShape)}: expected sizes such as 2,10`,
    };
  }
  const elements = shape.reduce((product, size) => product * size, 1);
  if (elements !== values.length) {
    return {
      ok: false,
      problem: `an output shape of [${shape.join(', ')}] (${elements} elements) over a body of ${values.length} float32 elements`,
    };
  }
  return { ok: true, tensor: { shape, values } };
}

/**
 * The bare non-finite words, quoted behind a NUL so that JSON.parse reads them as strings; a tensor
 * answer has no strings of its own, so no real element is mistaken for one.
 */
const NON_FINITE: Readonly<Record<string, number>> = {
  '\u0000NaN': Number.NaN,
  '\u0000Infinity': Number.POSITIVE_INFINITY,
  '\u0000-Infinity': Number.NEGATIVE_INFINITY,
};

/** The text with the bare words NaN, Infinity and -Infinity (outside strings) quoted as sentinels. */
function quoteNonFiniteWords(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const character = text[i] ?? '';
    if (inString) {
      out += character;
      if (character === '\\') {
        out += text[i + 1] ?? '';
        i += 1;
      } else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') {
      inString = true;
      out += character;
      continue;
    }
    const word = /^(-?Infinity|NaN)/.exec(text.slice(i, i + 9))?.[0];
    if (word !== undefined) {
      out += `"\\u0000${word}"`;
      i += word.length - 1;
      continue;
    }
    out += character;
  }
  return out;
}

function decodeJsonTensor(body: Uint8Array): DecodedTensor {
  const text = new TextDecoder().decode(body);
  if (text.trim() === '') return { ok: false, problem: 'an empty body' };
  let document: unknown;
  try {
    document = JSON.parse(quoteNonFiniteWords(text));
  } catch (error) {
    return {
      ok: false,
      problem: `a body that is not JSON (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  const root =
    typeof document === 'object' && document !== null && !Array.isArray(document) && 'predictions' in document
      ? document.predictions
      : document;
  const shape: number[] = [];
  for (let node: unknown = root; Array.isArray(node); node = node[0]) shape.push(node.length);
  const values = new Float64Array(shape.reduce((product, size) => product * size, 1));
  let written = 0;
  const walk = (node: unknown, depth: number, path: string): string | undefined => {
    if (depth === shape.length) {
      const value = typeof node === 'string' ? NON_FINITE[node] : node;
      if (typeof value !== 'number') return `${path}: got ${describe(node)}, expected a number`;
      values[written] = value;
      written += 1;
      return undefined;
    }
    if (!Array.isArray(node) || node.length !== shape[depth]) {
      return `${path}: got ${describe(node)}, expected an array of ${shape[depth] ?? 0} (rows of one answer have one shape)`;
    }
    for (let index = 0; index < node.length; index += 1) {
      const problem = walk(node[index], depth + 1, `${path}[${index}]`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
  const problem = walk(root, 0, root === document ? 'answer' : 'predictions');
  if (problem !== undefined) return { ok: false, problem: `not a tensor: ${problem}` };
  return { ok: true, tensor: { shape, values } };
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object with keys [${Object.keys(value).slice(0, 5).join(', ')}]`;
  if (typeof value === 'string') {
    return `the string ${JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value)}`;
  }
  // What is left of a parsed JSON document: a boolean (numbers never reach here).
  return `${typeof value} ${JSON.stringify(value)}`;
}
