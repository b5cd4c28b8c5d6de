// jest global set-up: makes sure the synthesis cache (local/synthesis-cache.ts, the one local runs
// use) holds the workflows for the sources as they are, before the workers start, so that no two
// workers synthesize at once; the suites that run them read it (test/support/synthesized-workflows.ts).
// Each such suite used to load aws-cdk-lib and synthesize the whole stack itself: about 10 s of CPU.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE_CLI = join(REPO_ROOT, 'local', 'synthesis-cache-cli.ts');
/** Must match SYNTHESIZED_WORKFLOWS_ENV in test/support/synthesized-workflows.ts. */
const SYNTHESIZED_WORKFLOWS_ENV = 'MSO_TEST_SYNTHESIZED_WORKFLOWS';
/** How a suite that reads the synthesis imports it (any depth under test/). */
const READER_IMPORT = "support/synthesized-workflows.js'";

function filesUnder(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
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

export default function globalSetup(globalConfig) {
  if (!runMayReadSynthesis(globalConfig.testPathPattern)) return;
  const child = spawnSync(process.execPath, ['--import', 'tsx', CACHE_CLI], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (child.status !== 0) {
    throw new Error(
      `jest global set-up: ${CACHE_CLI} exited ${child.status ?? child.signal}; expected exit 0 and the ` +
        'synthesis path. Its error is printed above; `npm run synth` shows the same error',
    );
  }
  // Read by the suites: the workers inherit this process's environment.
  process.env[SYNTHESIZED_WORKFLOWS_ENV] = child.stdout.trim();
}
