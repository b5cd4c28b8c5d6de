// `npm test`: the suites in two jest passes, one command. Most suites run on three workers; the few
// that compare real processes' timings (SERIAL_SUITES in jest.config.js) run afterwards on one, so
// no other suite loads the CPU while they measure. Arguments (paths, -t, …) go to both passes.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const JEST = join(REPO_ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
// jest's workers inherit these. A larger young generation (V8's default semi-space is 16 MB) means
// fewer scavenges while every suite loads its modules again: 2-3 % less CPU over 67 suites, two
// runs each.
const NODE_OPTIONS = [
  '--experimental-vm-modules',
  '--no-warnings=ExperimentalWarning',
  '--max-semi-space-size=32',
];

// Three workers on two cores: the suites that run workflows, e2e runs and async endpoints spend
// most of their time waiting on real load windows, so a third process fills the idle core time.
// A test that times real load must hold with three processes on two cores: make it independent of
// CPU load rather than lower the worker count.
const PASSES = [
  { project: 'parallel', workers: 3 },
  { project: 'serial', workers: 1 },
];

// The suites' temporary files, in one folder removed after the passes (TMPDIR, which os.tmpdir()
// and child processes read). aws-cdk-lib's App synthesizes into a new `cdk.out*` folder of the OS
// temp dir and never removes it: about 120 folders, some 25 MB, were left behind by every run.
// jest's own cache is not there (jest.config.js `cacheDirectory`).
const RUN_TMPDIR = mkdtempSync(join(tmpdir(), 'mso-test-'));
const CHILD_ENV = {
  ...process.env,
  TMPDIR: RUN_TMPDIR,
  // Suites that load ONNX Runtime themselves: its telemetry off, as the model server has it
  // (local/model-server/onnx-runtime-telemetry.ts).
  ORT_DISABLE_TELEMETRY: process.env['ORT_DISABLE_TELEMETRY'] ?? '1',
};

let interruptedBy;

/** Runs one pass; resolves to its exit code, or the signal that ended it. */
async function runPass(pass, userArguments) {
  const child = spawn(
    process.execPath,
    [
      ...NODE_OPTIONS,
      JEST,
      '--selectProjects',
      pass.project,
      `--maxWorkers=${pass.workers}`,
      // A path given to `npm test --` may select suites of one pass only.
      '--passWithNoTests',
      ...userArguments,
    ],
    { cwd: REPO_ROOT, stdio: 'inherit', env: CHILD_ENV },
  );
  // A signal sent to this process alone (e.g. `kill`) reaches jest too, which stops its workers.
  const forward = (signal) => {
    interruptedBy = signal;
    child.kill(signal);
  };
  process.on('SIGINT', forward).on('SIGTERM', forward);
  try {
    const [code, signal] = await once(child, 'exit');
    return { code, signal };
  } finally {
    process.off('SIGINT', forward).off('SIGTERM', forward);
  }
}

const userArguments = process.argv.slice(2);
let failed = false;
try {
  for (const pass of PASSES) {
    const { code, signal } = await runPass(pass, userArguments);
    const stoppedBy = signal ?? interruptedBy;
    if (stoppedBy !== undefined) {
      // Interrupted (Ctrl-C) or killed: no further pass.
      process.stderr.write(`\nnpm test: the ${pass.project} pass ended on ${stoppedBy}\n`);
      failed = true;
      break;
    }
    if (code !== 0) {
      failed = true;
      process.stderr.write(`\nnpm test: the ${pass.project} pass failed (exit ${code})\n`);
    }
  }
} finally {
  rmSync(RUN_TMPDIR, { recursive: true, force: true, maxRetries: 3 });
}
process.exitCode = failed ? 1 : 0;
