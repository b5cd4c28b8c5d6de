/**
 * What other rooms import from local/async/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export { LocalAsyncInvoker } from './local-async-invoker.js';
export { LocalTaskResumer } from './local-task-resumer.js';
export { MemoryTaskTokenStore } from './memory-task-token-store.js';
