/**
 * Streaming generative responses: parsers for the container formats, per-request token timing and
 * the streaming transport's shape (issue #17, first part; not wired into the engine yet).
 */
export * from './stream-events.js';
export * from './stream-parser.js';
export * from './token-timing.js';
export * from './stream-transport.js';
export { MAX_EVENT_CHARS } from './framing.js';
