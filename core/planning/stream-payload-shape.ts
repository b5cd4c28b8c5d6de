import type { InputIssue, StreamFormat } from '../contracts/index.js';

/**
 * Whether a request body can give the stream the load plan reads (each container's format, catalog/llm-containers.ts), checked
 * when planning, where the payloads are read anyway. A body that cannot work is refused (the
 * container would answer with one JSON body, or in another format, and every request would fail);
 * one that merely loses a figure is a plan warning.
 *
 * - TGI and LMI stream a generate request (`inputs`) only with `"stream": true` at its top level:
 *   TGI's SageMaker route reads it as `CompatGenerateRequest.stream`, default false
 *   (huggingface/text-generation-inference router/src/sagemaker.rs), and LMI's input schema has the
 *   same flag (djl-serving lmi_input_output_schema.md). A chat request (`messages`) to either is
 *   answered in the OpenAI chunk format instead.
 * - The OpenAI-compatible stream needs a chat (`messages`) or completions (`prompt`) request with
 *   `"stream": true`; without `stream_options: { "include_usage": true }` no chunk carries `usage`,
 *   so output tokens are counted, one per non-empty chunk, rather than the server's figure
 *   (https://platform.openai.com/docs/api-reference/chat/create, `stream_options`).
 */
export interface PayloadShapeFinding {
  readonly issue?: InputIssue;
  readonly warning?: string;
}

export function streamPayloadShape(
  format: StreamFormat,
  field: string,
  body: Uint8Array,
): PayloadShapeFinding {
  const request = parseObject(body);
  if (request === undefined) {
    return {
      issue: {
        field,
        given: 'a body that is not a JSON object',
        expected: `a JSON request object: the ${format} stream answers a JSON request`,
      },
    };
  }
  const keys = Object.keys(request);
  const given = `a JSON object with ${keys.length === 0 ? 'no fields' : keys.map((key) => `"${key}"`).join(', ')}${streamGiven(request)}`;
  if (format === 'openai') {
    if (request['messages'] === undefined && request['prompt'] === undefined) {
      return {
        issue: {
          field,
          given,
          expected:
            'a chat request ("messages") or a completions request ("prompt") with "stream": true: the OpenAI-compatible ' +
            'stream answers those (a TGI or LMI generate request, "inputs", streams in format tgi or lmi-*)',
        },
      };
    }
    if (request['stream'] !== true) {
      return { issue: { field, given, expected: streamExpected(format) } };
    }
    const options = request['stream_options'];
    if (!isObject(options) || options['include_usage'] !== true) {
      return {
        warning:
          `${field} asks for no usage figures ("stream_options": { "include_usage": true }): output tokens are counted ` +
          'one per non-empty chunk rather than taken from the server, and a chunk of several tokens counts once',
      };
    }
    return {};
  }
  if (request['messages'] !== undefined) {
    return {
      issue: {
        field,
        given,
        expected: `a generate request ("inputs") for format ${format}: the container answers a chat request ("messages") in the OpenAI chunk format, so set loadPlan.response.format "openai" or send "inputs"`,
      },
    };
  }
  if (request['stream'] !== true) return { issue: { field, given, expected: streamExpected(format) } };
  return {};
}

function streamExpected(format: StreamFormat): string {
  return `"stream": true at the request's top level: without it the container answers with one JSON body, which the ${format} stream parser cannot read`;
}

function streamGiven(request: Readonly<Record<string, unknown>>): string {
  return 'stream' in request ? ` ("stream": ${JSON.stringify(request['stream'])})` : '';
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseObject(body: Uint8Array): Readonly<Record<string, unknown>> | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
