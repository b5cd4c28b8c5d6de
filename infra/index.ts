/**
 * What other rooms import from infra/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export { configProblemOfCdkArgs } from './config-preflight.js';
export { CONFIG_FILE_CONTEXT_KEY, describeConfigProblem, loadOptimizerConfig } from './optimizer-config.js';
export { API_LOGGING_CONTEXT_KEY, buildServingOptimizerApp } from './serving-optimizer-app.js';
export { createConfiguredApp } from './synth-app.js';
