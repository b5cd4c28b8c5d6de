import type { GenerationSettings, PromptFormat } from '../../contracts/index.js';
import type { ChatMessage, Prompt } from './prompt-lines.js';

/**
 * The request body of one prompt, by the container's template. Each follows its container's
 * documented request schema; SageMaker hands the body to the container as it is, for
 * `InvokeEndpoint` and `InvokeEndpointWithResponseStream` alike, so streaming is the body's
 * `stream` flag:
 * - `tgi`: TGI's generate request `{"inputs", "parameters", "stream"}`, `parameters` of
 *   `GenerateParameters` (`max_new_tokens`, `do_sample`, `temperature` > 0, `top_p` in (0, 1),
 *   `top_k` > 0, `seed`, `stop` of at most 4, `details`; docs/openapi.json and
 *   router/src/validation.rs in huggingface/text-generation-inference,
 *   https://huggingface.co/docs/text-generation-inference/reference/api_reference).
 *   TGI refuses a temperature of 0: greedy decoding is `do_sample: false` without one.
 * - `lmi`: LMI's rolling-batch request `{"inputs", "parameters", "stream"}`, `parameters` of
 *   `GenerationParameters` (`max_new_tokens`, `do_sample`, `temperature`, `top_p`, `top_k`,
 *   `seed`, `stop_sequences`, `details`; serving/docs/lmi/user_guides/lmi_input_output_schema.md in
 *   deepjavalibrary/djl-serving). LMI up to 0.31 samples only with `do_sample: true`, so it is
 *   always sent.
 * - `openai`: the chat completion `{"messages", "max_tokens", "temperature", "top_p", "seed",
 *   "stop", "stream", "stream_options": {"include_usage": true}}`
 *   (https://platform.openai.com/docs/api-reference/chat/create), which vLLM, recent LMI and TGI
 *   on SageMaker (by the body's shape) take; `include_usage` makes the stream end with the
 *   server's token counts. A text prompt is one user message.
 * Both generate templates ask for `details`, whose last event carries `generated_tokens`, the
 * server's own output count (core/load-test/streaming/).
 */

/** The parameters TGI and LMI share, with `stop` under each one's name. */
function generateParameters(
  generation: GenerationSettings,
  stopField: 'stop' | 'stop_sequences',
): Record<string, unknown> {
  const sampling = generation.temperature > 0;
  return {
    max_new_tokens: generation.maxNewTokens,
    do_sample: sampling,
    ...(sampling ? { temperature: generation.temperature } : {}),
    // 1 keeps every token: the same as none, and TGI refuses it.
    ...(generation.topP === undefined || generation.topP >= 1 ? {} : { top_p: generation.topP }),
    ...(generation.topK === undefined ? {} : { top_k: generation.topK }),
    ...(generation.seed === undefined ? {} : { seed: generation.seed }),
    ...(generation.stop === undefined ? {} : { [stopField]: [...generation.stop] }),
    details: true,
  };
}

function chatMessages(prompt: Prompt): ChatMessage[] {
  return 'messages' in prompt ? [...prompt.messages] : [{ role: 'user', content: prompt.text }];
}

/**
 * The body of `prompt` in `format`. A chat prompt has a body in the OpenAI template only (TGI's and
 * LMI's generate routes take text, and the chat template that would flatten it is the model's):
 * the prompt set refuses such lines before this is called.
 */
export function promptBody(
  prompt: Prompt,
  format: PromptFormat,
  generation: GenerationSettings,
  stream: boolean,
): Record<string, unknown> {
  if (format === 'openai') {
    return {
      messages: chatMessages(prompt),
      max_tokens: generation.maxNewTokens,
      temperature: generation.temperature,
      ...(generation.topP === undefined ? {} : { top_p: generation.topP }),
      ...(generation.seed === undefined ? {} : { seed: generation.seed }),
      ...(generation.stop === undefined ? {} : { stop: [...generation.stop] }),
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    };
  }
  if ('messages' in prompt) {
    throw new RangeError(`a chat prompt has no ${format} body: only the openai template takes messages`);
  }
  return {
    inputs: prompt.text,
    parameters: generateParameters(generation, format === 'tgi' ? 'stop' : 'stop_sequences'),
    stream,
  };
}
