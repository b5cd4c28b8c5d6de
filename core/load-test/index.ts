/** The load-test engine: measure a serving candidate's latency and sustainable throughput. */
export * from './aggregate.js';
export * from './clock.js';
export * from './engine.js';
export * from './histogram.js';
export * from './payload.js';
export * from './payload-mix.js';
export * from './plan.js';
export type * from './ports.js';
export * from './results.js';
export * from './sla.js';
export * from './late-start.js';
export * from './stall.js';
export * from './segments.js';
export * from './rounds.js';
