/**
 * What other rooms import from infra/stacks/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export type { ServingOptimizerStackProps } from './serving-optimizer-stack.js';
export { ServingOptimizerStack } from './serving-optimizer-stack.js';
