/**
 * States "Clean up run resources" (success) and "Clean up after failure" of the optimization: the
 * run clean-up every path ends with (handlers/shared/run-clean-up.ts, where it is documented), over
 * the optimization's resources, its compilation jobs included. The async workflow and the failed-run
 * Lambda run the same clean-up through their own steps.
 */
export { cleanUpRun, type CleanUpDeps } from './shared/run-clean-up.js';
