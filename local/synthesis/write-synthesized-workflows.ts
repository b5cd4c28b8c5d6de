/**
 * Writes the synthesized workflows (`synthesizeWorkflows()`, the same stack `cdk synth` deploys) to
 * the JSON file named by the first argument. `local/synthesis/synthesis-cache.ts` runs it in a child process
 * (`node --import tsx`) on a cache miss, so the process that reads the cache never loads aws-cdk-lib.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { createEngine } from '../runner/index.js';
import { synthesizeWorkflows } from './synthesized-workflows.js';

const target = process.argv[2];
if (target === undefined || target === '') {
  throw new Error(
    'write-synthesized-workflows: got no output path; expected the JSON file to write as argument',
  );
}
// Written beside the target and renamed into place (atomic on one file system): a reader never sees
// a half-written file, and two runs writing at once each rename a whole one.
const partial = `${target}.${process.pid}.partial`;
const workflows = synthesizeWorkflows();
// Validated here, before the file exists (an invalid definition throws: no file), so that a reader
// of the cache runs them without validating again (rememberValidatedDefinition). The cache key
// covers the lock file, hence the engine's version.
for (const machine of [workflows.optimization, workflows.asyncInference, workflows.failedRunCleanUp]) {
  createEngine(machine.definition);
}
writeFileSync(partial, JSON.stringify(workflows));
renameSync(partial, target);
