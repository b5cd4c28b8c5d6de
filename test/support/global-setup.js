// jest global set-up: synthesizes the workflows once per change of the sources, in a child process,
// for the suites that run them (test/support/synthesized-workflows.ts reads the result). Each such
// suite used to load aws-cdk-lib and synthesize the whole stack itself: about 10 s of CPU each.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE_DIR = join(REPO_ROOT, '.cache', 'test-synth');
const WRITER = join(REPO_ROOT, 'test', 'support', 'write-synthesized-workflows.ts');
/** Must match SYNTHESIZED_WORKFLOWS_ENV in test/support/synthesized-workflows.ts. */
const SYNTHESIZED_WORKFLOWS_ENV = 'MSO_TEST_SYNTHESIZED_WORKFLOWS';
/** How a suite that reads the synthesis imports it (any depth under test/). */
const READER_IMPORT = "support/synthesized-workflows.js'";

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

/**
 * Whether the run may include a suite that reads the synthesis: a run of handler tests alone
 * (`npm test -- test/handlers`) does not wait for one. Without a path pattern (the whole suite,
 * --runTestsByPath, --onlyChanged), it may.
 */
function runMayReadSynthesis(testPathPattern) {
  if (!testPathPattern) return true;
  const selected = new RegExp(testPathPattern, 'i');
  return filesUnder(join(REPO_ROOT, 'test')).some(
    (file) =>
      file.endsWith('.test.ts') && selected.test(file) && readFileSync(file, 'utf8').includes(READER_IMPORT),
  );
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

export default function globalSetup(globalConfig) {
  mkdirSync(CACHE_DIR, { recursive: true });
  const name = `workflows-${sourcesHash()}.json`;
  const path = join(CACHE_DIR, name);
  // Read by the suites, which synthesize on first use when this set-up did not (see below).
  process.env[SYNTHESIZED_WORKFLOWS_ENV] = path;
  if (existsSync(path) || !runMayReadSynthesis(globalConfig.testPathPattern)) return;
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
  removeStale(name);
}
