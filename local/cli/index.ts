/**
 * What other rooms import from local/cli/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export { runAsyncCli } from './async/main.js';
export { runAwsPlan } from './aws-plan.js';
export { runCompareCli } from './compare.js';
export { INPUT_SCHEMAS, generateInputSchema, renderInputReference, schemaFileText } from './input-schemas.js';
export { runCli } from './main.js';
export { runAsProcess } from './workflow-cli.js';
