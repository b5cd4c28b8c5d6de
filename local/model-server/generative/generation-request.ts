/**
 * The bodies a generative container takes on `POST /invocations`, told apart by their shape as the
 * real containers do:
 * - `{"messages": [...]}`: the OpenAI-compatible chat completion (vLLM, recent LMI, and TGI on
 *   SageMaker, whose `/invocations` tells a generate, chat or completion body by its shape:
 *   `SagemakerRequest`, router/src/sagemaker.rs in huggingface/text-generation-inference); `max_tokens` (or
 *   `max_completion_tokens`), `temperature` (0 = greedy, sampling otherwise; default 1), `seed`,
 *   `stream`, `stream_options.include_usage`
 *   (https://platform.openai.com/docs/api-reference/chat/create);
 * - `{"inputs": "...", "parameters": {...}, "stream": bool}`: TGI's generate request, which LMI
 *   takes too (`max_new_tokens`, `do_sample`, `temperature`, `seed`;
 *   https://huggingface.co/docs/text-generation-inference/reference/api_reference and the LMI
 *   input/output schema cited in core/load-test/streaming/lmi-stream.ts).
 * SageMaker hands the container the request body as the caller sent it, for `InvokeEndpoint` and
 * `InvokeEndpointWithResponseStream` alike ("Amazon SageMaker AI passes all of the data in the body
 * to the model", API_runtime_InvokeEndpointWithResponseStream.html), so streaming is the body's
 * `stream` flag, not a different route. Unknown fields are ignored, as those servers ignore
 * parameters they do not use.
 */
import type { InputIssue } from '../../../core/contracts/index.js';

export type GenerationApi = 'chat' | 'generate';

export interface GenerationRequest {
  readonly api: GenerationApi;
  readonly prompt: string;
  readonly maxNewTokens: number;
  /** 0: greedy decoding; otherwise sampling from softmax(logits / temperature). */
  readonly temperature: number;
  /** Seed of the sampler; absent: a fresh one per request. */
  readonly seed?: number;
  readonly stream: boolean;
  /** OpenAI `stream_options.include_usage`: one more chunk with `usage` before `[DONE]`. */
  readonly includeUsage: boolean;
  /** TGI/LMI `parameters.details`: the non-streamed answer carries `details` (finish reason, counts). */
  readonly details: boolean;
}

/** The longest generation a request may ask for, and its default. */
export const MAX_NEW_TOKENS_LIMIT = 1024;
export const DEFAULT_MAX_NEW_TOKENS = 32;
/** Prompt words read, beyond which a request is refused (every prompt token is a model step). */
export const MAX_PROMPT_CHARS = 16_384;
const MAX_TEMPERATURE = 2;

/**
 * A request the server refuses with 400 (as vLLM does; TGI answers its validation errors with 422,
 * a 4xx all the same for a load test); every issue names the field.
 */
export class GenerationRequestError extends Error {
  override readonly name = 'GenerationRequestError';

  constructor(readonly issues: readonly InputIssue[]) {
    super(
      `Invalid generation request: ${issues
        .map((issue) => `${issue.field}: got ${issue.given}, expected ${issue.expected}`)
        .join('; ')}`,
    );
  }
}

type Json = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function given(value: unknown): string {
  // JSON.stringify gives undefined for undefined (typed as string).
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Reads one JSON body; throws GenerationRequestError naming every bad field at once. */
export function parseGenerationRequest(body: string): GenerationRequest {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new GenerationRequestError([
      { field: 'body', given: given(body), expected: 'a JSON object (Content-Type application/json)' },
    ]);
  }
  if (!isObject(value) || (value['messages'] === undefined && value['inputs'] === undefined)) {
    throw new GenerationRequestError([
      {
        field: 'body',
        given: given(value),
        expected: 'an object with "messages" (OpenAI chat completion) or "inputs" (TGI/LMI generate)',
      },
    ]);
  }
  const issues: InputIssue[] = [];
  const request = value['messages'] === undefined ? readGenerate(value, issues) : readChat(value, issues);
  if (issues.length > 0) throw new GenerationRequestError(issues);
  return request;
}

function readChat(body: Json, issues: InputIssue[]): GenerationRequest {
  const messages = body['messages'];
  const contents: string[] = [];
  if (!Array.isArray(messages) || messages.length === 0) {
    issues.push({ field: 'messages', given: given(messages), expected: 'a non-empty array of messages' });
  } else {
    messages.forEach((message: unknown, index) => {
      const content = isObject(message) ? message['content'] : undefined;
      if (!isObject(message) || typeof message['role'] !== 'string' || typeof content !== 'string') {
        issues.push({
          field: `messages[${index}]`,
          given: given(message),
          expected: 'an object with a "role" string and a "content" string',
        });
      } else {
        contents.push(content);
      }
    });
  }
  const maxField = body['max_completion_tokens'] === undefined ? 'max_tokens' : 'max_completion_tokens';
  const maxNewTokens = readMaxNewTokens(issues, maxField, body[maxField]);
  const streamOptions = body['stream_options'];
  if (streamOptions !== undefined && streamOptions !== null && !isObject(streamOptions)) {
    issues.push({ field: 'stream_options', given: given(streamOptions), expected: 'an object' });
  }
  const includeUsage = isObject(streamOptions)
    ? readBoolean(issues, 'stream_options.include_usage', streamOptions['include_usage'], false)
    : false;
  const seed = readSeed(issues, 'seed', body['seed']);
  return {
    api: 'chat',
    prompt: readPrompt(issues, 'messages', contents.join('\n')),
    maxNewTokens,
    temperature: readTemperature(issues, 'temperature', body['temperature'], 1),
    ...(seed === undefined ? {} : { seed }),
    stream: readBoolean(issues, 'stream', body['stream'], false),
    includeUsage,
    details: false,
  };
}

function readGenerate(body: Json, issues: InputIssue[]): GenerationRequest {
  const inputs = body['inputs'];
  if (typeof inputs !== 'string') {
    issues.push({ field: 'inputs', given: given(inputs), expected: 'the prompt as a string' });
  }
  const parameters = body['parameters'] ?? {};
  if (!isObject(parameters)) {
    issues.push({ field: 'parameters', given: given(parameters), expected: 'an object' });
  }
  const p: Json = isObject(parameters) ? parameters : {};
  const maxNewTokens = readMaxNewTokens(issues, 'parameters.max_new_tokens', p['max_new_tokens']);
  const doSample = readBoolean(issues, 'parameters.do_sample', p['do_sample'], false);
  const temperature = readTemperature(issues, 'parameters.temperature', p['temperature'], 1);
  if (p['temperature'] !== undefined && p['temperature'] !== null && temperature === 0) {
    // TGI refuses a zero temperature whatever do_sample says ("`temperature` must be strictly
    // positive", router/src/validation.rs in huggingface/text-generation-inference): greedy
    // decoding is `do_sample: false`.
    issues.push({
      field: 'parameters.temperature',
      given: '0',
      expected: 'a number above 0 (for greedy decoding, leave do_sample false)',
    });
  }
  const seed = readSeed(issues, 'parameters.seed', p['seed']);
  return {
    api: 'generate',
    prompt: readPrompt(issues, 'inputs', typeof inputs === 'string' ? inputs : ''),
    maxNewTokens,
    temperature: doSample ? temperature : 0,
    ...(seed === undefined ? {} : { seed }),
    stream: readBoolean(issues, 'stream', body['stream'], false),
    includeUsage: false,
    details: readBoolean(issues, 'parameters.details', p['details'], false),
  };
}

function readPrompt(issues: InputIssue[], field: string, prompt: string): string {
  if (prompt.length > MAX_PROMPT_CHARS) {
    issues.push({
      field,
      given: `${prompt.length} characters`,
      expected: `at most ${MAX_PROMPT_CHARS} characters of prompt`,
    });
  }
  return prompt;
}

function readMaxNewTokens(issues: InputIssue[], field: string, value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_MAX_NEW_TOKENS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_NEW_TOKENS_LIMIT) {
    issues.push({ field, given: given(value), expected: `an integer from 1 to ${MAX_NEW_TOKENS_LIMIT}` });
    return DEFAULT_MAX_NEW_TOKENS;
  }
  return value;
}

function readTemperature(issues: InputIssue[], field: string, value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_TEMPERATURE) {
    issues.push({ field, given: given(value), expected: `a number from 0 to ${MAX_TEMPERATURE}` });
    return fallback;
  }
  return value;
}

function readSeed(issues: InputIssue[], field: string, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    issues.push({ field, given: given(value), expected: 'a non-negative integer' });
    return undefined;
  }
  return value;
}

function readBoolean(issues: InputIssue[], field: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') {
    issues.push({ field, given: given(value), expected: 'true or false' });
    return fallback;
  }
  return value;
}
