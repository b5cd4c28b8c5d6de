/**
 * Signals sent to the `npm start` process (what a container runtime, CI or `kill` does) reach the
 * run: the CLI is npm's direct child (`exec node …` in the script), npm forwards SIGINT and
 * SIGTERM to it, the run stops, cleans up, and npm exits 130 or 143. Real processes throughout.
 * The run input is one uncompiled candidate (`npm start -- --input FILE`, as the usage says): the
 * example's calibration and compilation come before its first server and have nothing to do with
 * the signals.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RUN_LOCK_FILE } from '../../local/cli/run-lock.js';
import { isAlive } from '../local/platform/support/model-artifacts.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const IN_SERVICE = /in service at http:\/\/127\.0\.0\.1:\d+ \(pid (\d+)/;

let dir: string;
let inputPath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'e2e-signals-'));
  inputPath = join(dir, 'input.json');
  // The example's model and payload, without its calibration.
  const { model, payload } = JSON.parse(
    await readFile(join(REPO_ROOT, 'examples', 'local.json'), 'utf8'),
  ) as {
    model: unknown;
    payload: unknown;
  };
  const input = {
    model,
    payload,
    compilation: { targets: [] },
    candidates: [
      { id: 'plain', instanceType: 'ml.c5.large', environment: { MODEL_SERVER_INTRA_OP_THREADS: '1' } },
    ],
    // Far longer than the test: the signal comes once the server is up, before any measurement.
    loadPlan: { steps: [1], warmupSeconds: 0.5, stepDurationSeconds: 60, stopAtPlateau: false },
    sla: { p95LatencyMs: 1000 },
  };
  await writeFile(inputPath, JSON.stringify(input));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface StoppedRun {
  readonly exitCode: number | null;
  readonly output: string;
  readonly serverPid: number;
}

/** Starts `npm start`, sends `signal` to the npm process once a model server is up, waits for the exit. */
async function stopNpmStartWith(signal: 'SIGINT' | 'SIGTERM', runId: string): Promise<StoppedRun> {
  const npm: ChildProcess = spawn(
    'npm',
    [
      'start',
      '--',
      '--input',
      inputPath,
      '--run-id',
      runId,
      '--runs',
      join(dir, 'runs'),
      '--store',
      join(dir, 'store'),
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
  );
  let output = '';
  let serverPid: number | undefined;
  // npm ends by re-sending the forwarded signal to itself: report it as a shell does (128 + number).
  const exited = new Promise<number | null>((resolve) =>
    npm.once('exit', (code, ended) => {
      resolve(code ?? (ended === null ? null : 128 + constants.signals[ended]));
    }),
  );
  const onData = (chunk: Buffer): void => {
    output += chunk.toString();
    const match = IN_SERVICE.exec(output);
    if (serverPid === undefined && match?.[1] !== undefined) {
      serverPid = Number(match[1]);
      npm.kill(signal);
    }
  };
  npm.stdout?.on('data', onData);
  npm.stderr?.on('data', onData);
  const exitCode = await exited;
  if (serverPid === undefined) throw new Error(`no model server came up; npm printed:\n${output}`);
  return { exitCode, output, serverPid };
}

describe('signals sent to the npm process', () => {
  it('stops the run, cleans up and exits 143 on SIGTERM', async () => {
    // Act
    const run = await stopNpmStartWith('SIGTERM', 'signal-term');

    // Assert
    expect(run.output).toContain('SIGTERM: stopping the run, then cleaning up');
    expect(run.output).toContain('Clean-up ran: every endpoint was deleted and every model server stopped.');
    expect(run.exitCode).toBe(143);
    expect(isAlive(run.serverPid)).toBe(false);
    // The run id is free again: its lock went with the run.
    expect(existsSync(join(dir, 'runs', 'signal-term', RUN_LOCK_FILE))).toBe(false);
  }, 90_000);

  it('stops the run, cleans up and exits 130 on SIGINT', async () => {
    // Act
    const run = await stopNpmStartWith('SIGINT', 'signal-int');

    // Assert
    expect(run.output).toContain('SIGINT: stopping the run, then cleaning up');
    expect(run.output).toContain('Clean-up ran: every endpoint was deleted and every model server stopped.');
    expect(run.exitCode).toBe(130);
    expect(isAlive(run.serverPid)).toBe(false);
    // The run id is free again: its lock went with the run.
    expect(existsSync(join(dir, 'runs', 'signal-int', RUN_LOCK_FILE))).toBe(false);
  }, 90_000);
});
