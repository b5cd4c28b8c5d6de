/**
 * What other rooms import from local/model-server/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export type { GenerationRequest } from './generative/generation-request.js';
export type { GenerationSummary } from './generative/generation-scheduler.js';
export { streamWriterFor } from './generative/response-formats.js';
export { findModelFile } from './model-location.js';
export { disableOnnxRuntimeTelemetry } from './onnx-runtime-telemetry.js';
export type { ReferenceTimingReply, ReferenceTimingRequest } from './reference-timing-worker.js';
export { MODEL_SERVER_ENV, OMP_NUM_THREADS_ENV } from './server-options.js';
export { spawnWorkerModule } from './worker-pool.js';
