// jest global set-up: synthesizes the workflows once per change of the sources, in a child process,
// and tells the suites where the result is (test/support/synthesized-workflows.ts reads it). Each
// suite used to load aws-cdk-lib and synthesize the whole stack itself, some seconds of CPU each.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE_DIR = join(REPO_ROOT, '.cache', 'test-synth');
const WRITER = join(REPO_ROOT, 'test', 'support', 'write-synthesized-workflows.ts');
/** Must match SYNTHESIZED_WORKFLOWS_ENV in test/support/synthesized-workflows.ts. */
const SYNTHESIZED_WORKFLOWS_ENV = 'MSO_TEST_SYNTHESIZED_WORKFLOWS';

/** Everything the synthesized template can depend on: the app's sources, its config and the CDK version. */
const SOURCE_DIRECTORIES = ['infra', 'workflows', 'handlers', 'lambdas', 'local'];
const SOURCE_FILES = [
  'cdk.json',
  'package-lock.json',
  'tsconfig.json',
  'node_modules/aws-cdk-lib/package.json',
  'test/support/write-synthesized-workflows.ts',
];

function filesUnder(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/** A hash of the paths and contents of every source file: a new synthesis for any change. */
function sourcesHash() {
  const files = [
    ...SOURCE_DIRECTORIES.flatMap((directory) => filesUnder(join(REPO_ROOT, directory))),
    ...SOURCE_FILES.map((file) => join(REPO_ROOT, file)).filter((file) => existsSync(file)),
  ].sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(relative(REPO_ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** Removes the syntheses of earlier sources, keeping `keep`. */
function removeStale(keep) {
  for (const name of readdirSync(CACHE_DIR)) {
    const path = join(CACHE_DIR, name);
    // A partial file younger than ten minutes may be another run's synthesis still being written.
    const writing = name.endsWith('.partial') && Date.now() - statSync(path).mtimeMs < 600_000;
    if (name !== keep && !writing) rmSync(path, { force: true });
  }
}

export default function globalSetup() {
  mkdirSync(CACHE_DIR, { recursive: true });
  const name = `workflows-${sourcesHash()}.json`;
  const path = join(CACHE_DIR, name);
  if (!existsSync(path)) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', WRITER, path], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (child.status !== 0) {
      throw new Error(
        `jest global set-up: synthesizing the workflows failed (${WRITER} exited ${child.status ?? child.signal}); ` +
          'expected exit 0. Its error is printed above; `npm run synth` shows the same error',
      );
    }
  }
  removeStale(name);
  process.env[SYNTHESIZED_WORKFLOWS_ENV] = path;
}
