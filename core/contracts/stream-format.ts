/**
 * The container stream formats a streamed response may be read in: the run input names one
 * (`loadPlan.response.format`), the LLM container catalog gives each container's, and the load
 * test's parsers read each (load-test/streaming/stream-parser.ts cites each one's source).
 */
export const STREAM_FORMATS = ['openai', 'tgi', 'lmi-jsonlines', 'lmi-sse'] as const;

export type StreamFormat = (typeof STREAM_FORMATS)[number];
