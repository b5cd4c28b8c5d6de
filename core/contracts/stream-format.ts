import { isLlmContainer, type LlmContainer } from './model-frameworks.js';

/**
 * The container stream formats a streamed response may be read in: the run input names one
 * (`loadPlan.response.format`), the LLM container catalog gives each container's, and the load
 * test's parsers read each (load-test/streaming/stream-parser.ts cites each one's source).
 */
export const STREAM_FORMATS = ['openai', 'tgi', 'lmi-jsonlines', 'lmi-sse'] as const;

export type StreamFormat = (typeof STREAM_FORMATS)[number];

/** LMI's output formatter variable: `sse` streams `data:` events, otherwise JSON Lines. */
export const LMI_OUTPUT_FORMATTER = 'OPTION_OUTPUT_FORMATTER';

/**
 * The stream format a container emits when the load plan names none: LMI's JSON Lines, or its SSE
 * when the model's environment sets that formatter; TGI's own; vLLM's OpenAI chunks. A fact of each
 * container's protocol, so the run input's parse fills it in the plan it carries.
 */
export function defaultStreamFormat(
  container: LlmContainer,
  environment: Readonly<Record<string, string>>,
): StreamFormat {
  if (container === 'djl-lmi') {
    return environment[LMI_OUTPUT_FORMATTER] === 'sse' ? 'lmi-sse' : 'lmi-jsonlines';
  }
  return container === 'hf-tgi' ? 'tgi' : 'openai';
}

/** What the stream format of a run depends on: its model's container and the load plan's response. */
export interface StreamFormatInput {
  readonly model?:
    { readonly framework: string; readonly environment: Readonly<Record<string, string>> } | undefined;
  readonly loadPlan: {
    readonly response?: { readonly mode: string; readonly format?: StreamFormat | undefined } | undefined;
  };
}

/**
 * The stream format the plan reads: the one it names, else the container's default; none when the
 * plan does not stream or the model is not served by an LLM container.
 */
export function containerStreamFormat(input: StreamFormatInput): StreamFormat | undefined {
  const response = input.loadPlan.response;
  if (response?.mode !== 'stream') return undefined;
  if (response.format !== undefined) return response.format;
  const model = input.model;
  if (model === undefined || !isLlmContainer(model.framework)) return undefined;
  return defaultStreamFormat(model.framework, model.environment);
}
