import { z } from 'zod';
import { STREAM_FORMATS } from './stream-format.js';

/**
 * How the load test reads each response (`loadPlan.response`):
 * - `buffered`: the whole answer at once (`InvokeEndpoint`), timed end to end; what a plan without
 *   `response` does;
 * - `stream`: the answer as it streams (`InvokeEndpointWithResponseStream`, for containers that
 *   stream: https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpointWithResponseStream.html),
 *   read with the parser of the container's `format`, each request timed to its first token
 *   (TTFT), between tokens (ITL) and to its end, its output tokens counted.
 * The format is the container's, not a guess from the bytes: a TGI stream read as OpenAI's is
 * every event malformed, so a format without a stream is refused here, and a stream without its
 * format by the run input (contracts/run-input.ts), unless the model's LLM container gives the default
 * (catalog/llm-containers.ts), and by the engine.
 */
export const responseModeSchema = z
  .strictObject({
    mode: z.enum(['buffered', 'stream']),
    /** The container's stream format (load-test/streaming/stream-parser.ts cites each one's documentation). */
    format: z.enum(STREAM_FORMATS).optional(),
  })
  .superRefine((response, ctx) => {
    if (response.mode === 'buffered' && response.format !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['format'],
        input: response.format,
        message:
          'nothing with mode "buffered" (a format is read only from a streamed response): set mode "stream" or remove format',
      });
    }
  });

export type ResponseMode = z.infer<typeof responseModeSchema>;
