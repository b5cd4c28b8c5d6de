/**
 * `npm run schemas`: writes the run inputs' JSON Schemas under schemas/ and the input reference
 * docs/run-input-reference.md (local/cli/input-schemas.ts), then formats the page with Prettier, as
 * the committed files are. Exits 1 naming any field without a description.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateInputSchema, INPUT_SCHEMAS, renderInputReference, schemaFileText } from './cli/index.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REFERENCE_PAGE = join(REPO_ROOT, 'docs', 'run-input-reference.md');

const generated = INPUT_SCHEMAS.map((spec) => ({ spec, ...generateInputSchema(spec) }));
const problems = generated.flatMap(({ spec, undescribed, unknownDescriptions }) => [
  ...undescribed.map(
    (path) => `${spec.file}: ${path} has no description in core/contracts/run-input-descriptions.ts`,
  ),
  ...unknownDescriptions.map(
    (path) => `${spec.file}: the description of ${path} names no field of the schema`,
  ),
]);
if (problems.length > 0) {
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  process.exit(1);
}
mkdirSync(join(REPO_ROOT, 'schemas'), { recursive: true });
for (const { spec, document } of generated) {
  writeFileSync(join(REPO_ROOT, 'schemas', spec.file), schemaFileText(document));
}
writeFileSync(REFERENCE_PAGE, renderInputReference(generated));
// Formatted as every committed file is (npm run lint checks them with Prettier).
execFileSync(
  process.execPath,
  [
    join(REPO_ROOT, 'node_modules', 'prettier', 'bin', 'prettier.cjs'),
    '--write',
    REFERENCE_PAGE,
    ...generated.map(({ spec }) => join(REPO_ROOT, 'schemas', spec.file)),
  ],
  { stdio: 'ignore' },
);
process.stdout.write(
  `Wrote ${generated.map(({ spec }) => `schemas/${spec.file}`).join(', ')} and docs/run-input-reference.md\n`,
);
