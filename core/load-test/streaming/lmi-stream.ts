import type { StreamEvent } from './stream-events.js';
import { countOf, isJsonObject, malformed, modelError, parseJsonObject } from './json-event.js';
import type { StreamFormat } from '../../contracts/index.js';

/**
 * One event of the LMI (DJL Serving) rolling-batch stream, as the LMI input/output schema defines
 * it (deepjavalibrary/djl-serving, serving/docs/lmi/user_guides/lmi_input_output_schema.md,
 * https://docs.djl.ai/master/docs/serving/serving/docs/lmi/user_guides/lmi_input_output_schema.html):
 * - with `"stream": true` the default `output_formatter` is `jsonlines`: one line per token,
 *   `{"token": {"id", "text", "log_prob"}}` (`special_token` where the tokenizer says so); with
 *   `output_formatter=sse` (or `tgi_compat`) the same objects come as `data:` events;
 * - the last line also has `generated_text` and `details` (`finish_reason`, `generated_tokens`);
 * - an error during generation, after the 200, is a last line whose `details.finish_reason` is
 *   `"error"` (with a placeholder token of id -1 and `generated_tokens: null`); a payload
 *   validation error is `{"error": "...", "code": 424}`.
 * The SSE form's documented example has no blank line between events, so the parser reads each
 * `data:` line of it as one event (stream-parser.ts) rather than waiting for a blank line.
 */
export function interpretLmiEvent(format: StreamFormat, line: string): readonly StreamEvent[] {
  const event = parseJsonObject(line);
  if (event === undefined) return [malformed(format, line, 'a JSON object per line')];
  const error = event['error'];
  if (error !== undefined) {
    const code = typeof event['code'] === 'number' ? ` (code ${event['code']})` : '';
    return [modelError(format, `${typeof error === 'string' ? error : JSON.stringify(error)}${code}`)];
  }
  const details = isJsonObject(event['details']) ? event['details'] : undefined;
  const finishReason = typeof details?.['finish_reason'] === 'string' ? details['finish_reason'] : undefined;
  if (finishReason === 'error') {
    return [modelError(format, 'the generation ended with finish_reason "error"')];
  }
  const isLast = typeof event['generated_text'] === 'string';
  const token = event['token'];
  const events: StreamEvent[] = [];
  if (isJsonObject(token) && typeof token['text'] === 'string') {
    events.push({ kind: 'token', text: token['text'], special: token['special_token'] === true });
  } else if (token !== undefined || !isLast) {
    return [malformed(format, line, 'a "token" object with a "text" string')];
  }
  if (!isLast) return events;
  const outputTokens = countOf(details?.['generated_tokens']);
  if (outputTokens !== undefined) events.push({ kind: 'usage', outputTokens });
  events.push(finishReason === undefined ? { kind: 'done' } : { kind: 'done', finishReason });
  return events;
}
