/**
 * What other rooms import from lambdas/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export { StepVariables } from './config.js';
export { RunEventVariables, StateMachineVariables } from './run-event-variables.js';
