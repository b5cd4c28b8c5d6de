import type { StreamEvent } from './stream-events.js';
import { countOf, isJsonObject, malformed, modelError, parseJsonObject } from './json-event.js';
import type { JsonObject } from './json-event.js';

/**
 * One SSE event of an OpenAI-compatible streamed completion (vLLM's OpenAI server, recent LMI),
 * as the OpenAI API reference defines the chunk object ("The chat completion chunk object",
 * https://platform.openai.com/docs/api-reference/chat-streaming, and the legacy completions
 * stream):
 * - `data: [DONE]` ends the stream;
 * - a chunk's `choices[i].delta.content` (chat) or `choices[i].text` (completions) holds the new
 *   text; the first chat chunk carries only the role (`content: ""`) and the last one the
 *   `finish_reason`, so only non-empty text is a token;
 * - with `stream_options: { include_usage: true }` one more chunk before `[DONE]`, with
 *   `choices: []`, carries `usage` (`completion_tokens`, `prompt_tokens`) and the others carry
 *   `usage: null` (https://platform.openai.com/docs/api-reference/chat/create, `stream_options`);
 *   some servers send that chunk with `choices: null`; vLLM's `continuous_usage_stats` puts usage
 *   on every chunk, and the last one read wins;
 * - an error after the 200 is a chunk `{"error": {"message", "type", "code"}}` (vLLM,
 *   `create_streaming_error_response` in vllm/entrypoints/openai/serving_engine.py; older releases
 *   sent the error object flat, with `"object": "error"`).
 * The load test asks for one completion (`n: 1`), so only choice 0 is read. A `finish_reason` is
 * taken as the end as much as `[DONE]`: servers that omit `[DONE]` still end every choice with one.
 */
export function interpretOpenAiEvent(data: string): readonly StreamEvent[] {
  if (data.trim() === '[DONE]') return [{ kind: 'done' }];
  const chunk = parseJsonObject(data);
  if (chunk === undefined) return [malformed('openai', data, 'a JSON chunk object or [DONE]')];
  const error = errorDetail(chunk);
  if (error !== undefined) return [modelError('openai', error)];

  const { choices, usage } = chunk;
  if ((choices === undefined || choices === null) && !isJsonObject(usage)) {
    return [malformed('openai', data, 'a chunk with "choices" or "usage"')];
  }
  if (choices !== undefined && choices !== null && !Array.isArray(choices)) {
    return [malformed('openai', data, '"choices" as an array')];
  }
  const events: StreamEvent[] = [];
  let finishReason: string | undefined;
  const choiceList: readonly unknown[] = Array.isArray(choices) ? choices : [];
  for (const choice of choiceList) {
    if (!isJsonObject(choice)) return [malformed('openai', data, 'each choice as an object')];
    if ((choice['index'] ?? 0) !== 0) continue;
    const delta = choice['delta'];
    const text = isJsonObject(delta) ? delta['content'] : choice['text'];
    if (typeof text === 'string' && text !== '') events.push({ kind: 'token', text, special: false });
    if (typeof choice['finish_reason'] === 'string') finishReason = choice['finish_reason'];
  }
  if (isJsonObject(usage)) {
    const outputTokens = countOf(usage['completion_tokens']);
    const inputTokens = countOf(usage['prompt_tokens']);
    if (outputTokens !== undefined) {
      events.push({ kind: 'usage', outputTokens, ...(inputTokens === undefined ? {} : { inputTokens }) });
    }
  }
  if (finishReason !== undefined) events.push({ kind: 'done', finishReason });
  return events;
}

function errorDetail(chunk: JsonObject): string | undefined {
  const error = chunk['error'];
  if (typeof error === 'string') return error;
  if (isJsonObject(error)) return describeErrorObject(error);
  if (chunk['object'] === 'error') return describeErrorObject(chunk);
  return undefined;
}

function describeErrorObject(error: JsonObject): string {
  const message = typeof error['message'] === 'string' ? error['message'] : JSON.stringify(error);
  const type = typeof error['type'] === 'string' ? `${error['type']}: ` : '';
  const code = typeof error['code'] === 'number' ? ` (code ${error['code']})` : '';
  return `${type}${message}${code}`;
}
