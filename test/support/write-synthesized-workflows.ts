/**
 * Writes the synthesized workflows (`synthesizeWorkflows()`, the same stack `cdk synth` and local
 * mode use) to the JSON file named by the first argument. jest's global set-up runs this once in a
 * child process (`node --import tsx`), so the suites read one synthesis instead of each loading
 * aws-cdk-lib and synthesizing the stack again (see `test/support/synthesized-workflows.ts`).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { synthesizeWorkflows } from '../../local/synthesized-workflows.js';

const target = process.argv[2];
if (target === undefined || target === '') {
  throw new Error(
    'write-synthesized-workflows: got no output path; expected the JSON file to write as argument',
  );
}
// Written beside the target and renamed into place: a reader never sees a half-written file.
const partial = `${target}.${process.pid}.partial`;
writeFileSync(partial, JSON.stringify(synthesizeWorkflows()));
renameSync(partial, target);
