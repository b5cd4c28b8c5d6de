/**
 * Prints the path of the synthesized workflows for the sources as they are now, synthesizing them
 * first on a cache miss (`local/synthesis/synthesis-cache.ts`). jest's global set-up runs it once per test run
 * (`test/support/global-setup.js`), before the workers start, so no two workers synthesize.
 */
import { cachedSynthesizedWorkflows } from './synthesis/index.js';

const { path } = cachedSynthesizedWorkflows();
process.stdout.write(`${path}\n`);
