/**
 * What other rooms import from local/adapters/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export { createHttpEndpointAnswerer } from './http-endpoint-answerer.js';
export { createHttpInvokeTransport } from './http-invoke-transport.js';
export { createHttpStreamTransport } from './http-stream-transport.js';
export { LocalCompiler } from './local-compiler.js';
export { LocalInstanceQuotas } from './local-instance-quotas.js';
export { LocalInvocationsPerInstance } from './local-invocations-per-instance.js';
export { LocalOptimizer } from './local-optimizer.js';
export { createLocalStreamTransportFactory, createLocalTransportFactory } from './local-transport-factory.js';
