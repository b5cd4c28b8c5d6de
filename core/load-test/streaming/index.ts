/**
 * Streaming generative responses: parsers for the container formats, per-request token timing, the
 * streaming transport's shape, and the engine's streaming mode (`loadPlan.response`): per-step
 * TTFT, ITL and output tokens, merged across workers and segments.
 */
export * from './stream-events.js';
export * from './stream-parser.js';
export * from './token-timing.js';
export * from './stream-transport.js';
export type * from './stream-figures.js';
export { MAX_EVENT_CHARS } from './framing.js';
