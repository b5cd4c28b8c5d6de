import type { GenerativeOutputFormat } from '../contracts/index.js';
import { countOf, isJsonObject, type JsonObject } from '../load-test/index.js';

/**
 * The token counts of one async generative result: what the container wrote to the output object
 * (a whole answer, not a stream: async endpoints store the body of the response), read with the
 * container's own format. Counts come from the server's own figures only; an answer without them
 * is "not counted", with what would make the server report them. No count is estimated from the
 * text: without the model's tokenizer, a guess would be a different figure under the same name.
 *
 * - `tgi`: Hugging Face TGI's SageMaker route answers `[{"generated_text", "details"?}]` (its
 *   `compat_generate` wraps `generate`'s object in a list, router/src/server.rs in
 *   huggingface/text-generation-inference); `details.generated_tokens` is there when the request
 *   asks `"parameters": {"details": true}`; the prompt's length is `details.input_length` where
 *   the release reports it, else the `prefill` tokens (with `decoder_input_details: true`).
 * - `lmi`: LMI (DJL Serving) answers `{"generated_text", "details"?}` (a list for a list of
 *   inputs), `details.generated_tokens` with `"parameters": {"details": true}` (the LMI
 *   input/output schema, deepjavalibrary/djl-serving serving/docs/lmi/user_guides/lmi_input_output_schema.md).
 * - `openai`: a chat completion or completion object, whose `usage` has `completion_tokens` and
 *   `prompt_tokens` (https://platform.openai.com/docs/api-reference/chat/object), vLLM's and recent
 *   LMI's OpenAI-compatible route.
 */

export type GeneratedTokens =
  | { readonly counted: true; readonly outputTokens: number; readonly inputTokens?: number }
  | { readonly counted: false; readonly reason: string };

/** The fix for an answer without counts, per format. */
const ASK_FOR_DETAILS = 'send "parameters": {"details": true} in each input to have the container count them';

export function generatedTokensOf(format: GenerativeOutputFormat, body: Uint8Array): GeneratedTokens {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return notCounted(`the output is not JSON, expected ${EXPECTED[format]}`);
  }
  if (format === 'openai') return openAiTokens(value);
  // A list answers a list of inputs (LMI) or wraps one answer (TGI): its counts add up.
  const answers = Array.isArray(value) ? value : [value];
  if (answers.length === 0 || !answers.every(isJsonObject)) {
    return notCounted(`the output is not ${EXPECTED[format]}`);
  }
  let outputTokens = 0;
  let inputTokens: number | undefined = 0;
  for (const answer of answers) {
    if (typeof answer['generated_text'] !== 'string') {
      return notCounted(`the output has no "generated_text", expected ${EXPECTED[format]}`);
    }
    const details = isJsonObject(answer['details']) ? answer['details'] : undefined;
    const generated = countOf(details?.['generated_tokens']);
    if (generated === undefined)
      return notCounted(`the output has no details.generated_tokens: ${ASK_FOR_DETAILS}`);
    outputTokens += generated;
    const input = details === undefined ? undefined : promptTokens(details);
    inputTokens = input === undefined || inputTokens === undefined ? undefined : inputTokens + input;
  }
  return { counted: true, outputTokens, ...(inputTokens === undefined ? {} : { inputTokens }) };
}

const EXPECTED: Readonly<Record<GenerativeOutputFormat, string>> = {
  tgi: 'TGI\'s [{"generated_text": …, "details": {…}}]',
  lmi: 'LMI\'s {"generated_text": …, "details": {…}}',
  openai: 'an OpenAI-compatible completion with "usage"',
};

function openAiTokens(value: unknown): GeneratedTokens {
  if (!isJsonObject(value)) return notCounted(`the output is not ${EXPECTED.openai}`);
  const usage = isJsonObject(value['usage']) ? value['usage'] : undefined;
  const outputTokens = countOf(usage?.['completion_tokens']);
  if (outputTokens === undefined) {
    return notCounted(
      'the output has no usage.completion_tokens: check that the route is a chat completion or completion',
    );
  }
  const inputTokens = countOf(usage?.['prompt_tokens']);
  return { counted: true, outputTokens, ...(inputTokens === undefined ? {} : { inputTokens }) };
}

function promptTokens(details: JsonObject): number | undefined {
  const inputLength = countOf(details['input_length']);
  if (inputLength !== undefined) return inputLength;
  const prefill = details['prefill'];
  return Array.isArray(prefill) && prefill.length > 0 ? prefill.length : undefined;
}

function notCounted(reason: string): GeneratedTokens {
  return { counted: false, reason };
}
