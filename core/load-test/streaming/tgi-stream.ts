import type { StreamEvent } from './stream-events.js';
import { countOf, isJsonObject, malformed, modelError, parseJsonObject } from './json-event.js';

/**
 * One SSE event of Hugging Face TGI's `generate_stream` (what `/invocations` streams with
 * `"stream": true` on the TGI image; the shapes are TGI's `StreamResponse` and `ErrorResponse`,
 * https://huggingface.co/docs/text-generation-inference/conceptual/streaming and
 * https://github.com/huggingface/text-generation-inference/pull/36):
 * - every event holds one generated token, `{"token": {"id", "text", "logprob", "special"},
 *   "generated_text": null, "details": null}`; a special token (end of sequence) is generated and
 *   counted but is not text;
 * - the last event also has `generated_text` (a string) and `details` with `finish_reason`,
 *   `generated_tokens` and, in recent releases, `input_length`;
 * - an error after the 200 is an event `{"error": "...", "error_type": "..."}`.
 */
export function interpretTgiEvent(data: string): readonly StreamEvent[] {
  const event = parseJsonObject(data);
  if (event === undefined) return [malformed('tgi', data, 'a JSON object')];
  const error = event['error'];
  if (error !== undefined) {
    const type = typeof event['error_type'] === 'string' ? `${event['error_type']}: ` : '';
    return [modelError('tgi', `${type}${typeof error === 'string' ? error : JSON.stringify(error)}`)];
  }
  const token = event['token'];
  if (!isJsonObject(token) || typeof token['text'] !== 'string') {
    return [malformed('tgi', data, 'a "token" object with a "text" string')];
  }
  const events: StreamEvent[] = [{ kind: 'token', text: token['text'], special: token['special'] === true }];
  if (typeof event['generated_text'] !== 'string') return events;

  const details = event['details'];
  const outputTokens = isJsonObject(details) ? countOf(details['generated_tokens']) : undefined;
  const inputTokens = isJsonObject(details) ? countOf(details['input_length']) : undefined;
  if (outputTokens !== undefined) {
    events.push({ kind: 'usage', outputTokens, ...(inputTokens === undefined ? {} : { inputTokens }) });
  }
  const finishReason = isJsonObject(details) ? details['finish_reason'] : undefined;
  events.push(typeof finishReason === 'string' ? { kind: 'done', finishReason } : { kind: 'done' });
  return events;
}
