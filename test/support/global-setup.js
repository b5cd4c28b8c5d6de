// jest global set-up: makes sure two caches hold what the suites read for the sources as they are,
// before the workers start, so that no two workers synthesize at once:
// - the synthesis cache local runs use (local/synthesis/synthesis-cache.ts): the workflows, for the suites
//   that run them (test/support/synthesized-workflows.ts);
// - the app synthesized with every check `cdk synth` runs, per configuration, for the suites that
//   judge those checks (test/support/checked-apps.ts).
// Each such suite used to load aws-cdk-lib and synthesize the whole stack itself, with cdk-nag and
// Guard for the second kind. Both are synthesized at once, in two child processes.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * Each cache: the program that prints its file's path (filling it on a miss), the environment
 * variable the suites read that path from, and how a suite that reads it imports its reader.
 */
const CACHES = [
  {
    cli: join(REPO_ROOT, 'local', 'synthesis-cache-cli.ts'),
    // Must match SYNTHESIZED_WORKFLOWS_ENV in test/support/synthesized-workflows.ts.
    env: 'MSO_TEST_SYNTHESIZED_WORKFLOWS',
    readerImport: "support/synthesized-workflows.js'",
  },
  {
    cli: join(REPO_ROOT, 'test', 'support', 'checked-apps-cli.ts'),
    // Must match CHECKED_APPS_ENV in test/support/checked-apps.ts.
    env: 'MSO_TEST_CHECKED_APPS',
    readerImport: "support/checked-apps.js'",
  },
];

function filesUnder(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/**
 * Whether the run may include a suite that imports `readerImport`: a run of handler tests alone
 * (`npm test -- test/handlers`) does not wait for a synthesis. Without a path pattern (the whole
 * suite, --runTestsByPath, --onlyChanged), it may.
 */
function runMayRead(testPathPattern, readerImport) {
  if (!testPathPattern) return true;
  const selected = new RegExp(testPathPattern, 'i');
  return filesUnder(join(REPO_ROOT, 'test')).some(
    (file) =>
      file.endsWith('.test.ts') && selected.test(file) && readFileSync(file, 'utf8').includes(readerImport),
  );
}

/** Runs one cache's program; resolves to the path it printed. */
async function fill(cache) {
  const child = spawn(process.execPath, ['--import', 'tsx', cache.cli], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk;
  });
  // 'close', not 'exit': the path is read once stdout is drained.
  const [code, signal] = await once(child, 'close');
  if (code !== 0) {
    throw new Error(
      `jest global set-up: ${cache.cli} exited ${code ?? signal}; expected exit 0 and the cache ` +
        'path. Its error is printed above; `npm run synth` shows the same error',
    );
  }
  return stdout.trim();
}

export default async function globalSetup(globalConfig) {
  const needed = CACHES.filter((cache) => runMayRead(globalConfig.testPathPattern, cache.readerImport));
  const paths = await Promise.all(needed.map(fill));
  // Read by the suites: the workers inherit this process's environment.
  needed.forEach((cache, index) => {
    process.env[cache.env] = paths[index];
  });
}
