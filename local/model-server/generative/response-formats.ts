/**
 * What the generative server writes back, in the shapes of the containers it stands in for; each
 * is the shape the project's stream parsers read (core/load-test/streaming/, where every
 * format's source is cited), so a load test reads this server as it reads the real container.
 *
 * - `chat` requests (`messages`) answer as the OpenAI chat completion: streamed as
 *   `chat.completion.chunk` SSE events (a first chunk with the role, one chunk per token, a last
 *   chunk with `finish_reason`, with `include_usage` one more with `choices: []` and `usage`, then
 *   `data: [DONE]`), or one `chat.completion` object
 *   (https://platform.openai.com/docs/api-reference/chat-streaming).
 * - `generate` requests (`inputs`) answer in the container format the server is set to
 *   (`MODEL_SERVER_STREAM_FORMAT`, as a real endpoint is one image): TGI streams an SSE event per
 *   token with `generated_text` and `details` on the last (`StreamResponse`), and answers a plain
 *   request with a one-element list `[{"generated_text": ...}]` (TGI's SageMaker route
 *   `compat_generate` wraps `generate`'s object in a list, router/src/server.rs in
 *   huggingface/text-generation-inference); LMI streams one JSON line per token (`jsonlines`, its
 *   default) or the same objects as `data:` events (`sse`), and answers a plain request with one
 *   object `{"generated_text": ...}` (the LMI input/output schema).
 */
import type { GenerationRequest } from './generation-request.js';
import type { FinishReason, GeneratedToken, GenerationSummary } from './generation-scheduler.js';

/** The container format of `generate` requests (the stream parsers' `StreamFormat` names). */
export type GenerateFormat = 'tgi' | 'lmi-jsonlines' | 'lmi-sse';
export const GENERATE_FORMATS: readonly GenerateFormat[] = ['tgi', 'lmi-jsonlines', 'lmi-sse'];

/** The model name the OpenAI-compatible answers carry. */
export const GENERATIVE_MODEL_NAME = 'example-generative';

const SSE_CONTENT_TYPE = 'text/event-stream';
const JSON_LINES_CONTENT_TYPE = 'application/jsonlines';

/** Turns one generation's events into the bytes of its streamed response. */
export interface StreamWriter {
  readonly contentType: string;
  /** Written with the headers, before the first token (the OpenAI role chunk). */
  start(): string;
  token(token: GeneratedToken, last: GenerationSummary | undefined): string;
  /** An error after the 200, in the format's own error event. */
  fail(message: string): string;
}

const sse = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;

let completionCounter = 0;

/** The writer for a streamed response to `request`. */
export function streamWriterFor(request: GenerationRequest, format: GenerateFormat): StreamWriter {
  if (request.api === 'chat') return openAiStreamWriter(request);
  if (format === 'tgi') return tgiStreamWriter();
  return lmiStreamWriter(format);
}

function tgiStreamWriter(): StreamWriter {
  let index = 0;
  return {
    contentType: SSE_CONTENT_TYPE,
    start: () => '',
    token(token, last) {
      index += 1;
      return sse({
        index,
        token: { id: token.id, text: token.text, logprob: token.logprob, special: token.special },
        generated_text: last === undefined ? null : last.text,
        details:
          last === undefined
            ? null
            : {
                finish_reason: last.finishReason,
                generated_tokens: last.generatedTokens,
                input_length: last.inputTokens,
                seed: null,
              },
      });
    },
    fail: (message) => sse({ error: message, error_type: 'generation' }),
  };
}

function lmiStreamWriter(format: 'lmi-jsonlines' | 'lmi-sse'): StreamWriter {
  const frame = (value: unknown): string =>
    format === 'lmi-sse' ? sse(value) : `${JSON.stringify(value)}\n`;
  return {
    contentType: format === 'lmi-sse' ? SSE_CONTENT_TYPE : JSON_LINES_CONTENT_TYPE,
    start: () => '',
    token(token, last) {
      const tokenObject = {
        id: token.id,
        text: token.text,
        log_prob: token.logprob,
        ...(token.special ? { special_token: true } : {}),
      };
      if (last === undefined) return frame({ token: tokenObject });
      return frame({
        token: tokenObject,
        generated_text: last.text,
        details: { finish_reason: last.finishReason, generated_tokens: last.generatedTokens },
      });
    },
    // LMI's error after the 200: a last line whose finish_reason is "error", with a placeholder
    // token of id -1 (see core/load-test/streaming/lmi-stream.ts).
    fail: (message) =>
      frame({
        token: { id: -1, text: '', log_prob: -1, special_token: true },
        generated_text: null,
        details: { finish_reason: 'error', generated_tokens: null, error: message },
      }),
  };
}

function openAiStreamWriter(request: GenerationRequest): StreamWriter {
  completionCounter += 1;
  const base = {
    id: `chatcmpl-${completionCounter}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: GENERATIVE_MODEL_NAME,
  };
  // With include_usage every chunk but the usage one carries `usage: null` (stream_options).
  const usageNull = request.includeUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, string>, finishReason: string | null): string =>
    sse({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...usageNull,
    });
  return {
    contentType: SSE_CONTENT_TYPE,
    start: () => chunk({ role: 'assistant', content: '' }, null),
    token(token, last) {
      // The end token is not text: OpenAI-compatible servers end with finish_reason "stop" instead.
      let out = token.special ? '' : chunk({ content: token.text }, null);
      if (last === undefined) return out;
      out += chunk({}, openAiFinishReason(last.finishReason));
      if (request.includeUsage) {
        out += sse({ ...base, choices: [], usage: usageOf(last) });
      }
      return `${out}data: [DONE]\n\n`;
    },
    // vLLM's error after the 200: a chunk with an `error` object (openai-stream.ts).
    fail: (message) =>
      `${sse({ error: { message, type: 'InternalServerError', code: 500 } })}data: [DONE]\n\n`,
  };
}

function openAiFinishReason(reason: FinishReason): 'stop' | 'length' {
  return reason === 'eos_token' ? 'stop' : 'length';
}

function usageOf(summary: GenerationSummary): Record<string, number> {
  return {
    prompt_tokens: summary.inputTokens,
    completion_tokens: summary.generatedTokens,
    total_tokens: summary.inputTokens + summary.generatedTokens,
  };
}

/** The body of a non-streamed answer. */
export function completeResponse(
  request: GenerationRequest,
  format: GenerateFormat,
  summary: GenerationSummary,
): unknown {
  if (request.api === 'chat') {
    completionCounter += 1;
    return {
      id: `chatcmpl-${completionCounter}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: GENERATIVE_MODEL_NAME,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: summary.text },
          logprobs: null,
          finish_reason: openAiFinishReason(summary.finishReason),
        },
      ],
      usage: usageOf(summary),
    };
  }
  const details = request.details
    ? {
        details: {
          finish_reason: summary.finishReason,
          generated_tokens: summary.generatedTokens,
          ...(format === 'tgi' ? { input_length: summary.inputTokens } : {}),
        },
      }
    : {};
  const answer = { generated_text: summary.text, ...details };
  return format === 'tgi' ? [answer] : answer;
}
