/**
 * What other rooms import from local/platform/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export type { AsyncEndpointSnapshot } from './async-endpoint.js';
export { LocalAsyncEndpoint } from './async-endpoint.js';
export { LocalAsyncPlatform } from './async-platform.js';
export { createConsoleLogger } from './console-logger.js';
export { planServerCpu } from './cpu-budget.js';
export { LocalValidationError } from './errors.js';
export { FileObjectStore } from './file-object-store.js';
export { LOCAL_IMAGE } from './local-image.js';
export { DEFAULT_MAX_CPU_OVERCOMMIT, LocalModelHost } from './local-model-host.js';
export type { MachineLoadSample } from './machine-load.js';
export { MachineLoadMonitor, reportMachineLoad } from './machine-load.js';
export { copyModelPrefix, extractModelArchive } from './model-archive.js';
export { OverlayObjectStore } from './overlay-object-store.js';
export type { InstanceInvocations } from './realtime-endpoint.js';
export { scratchDir, sweepOrphanedScratch } from './scratch.js';
