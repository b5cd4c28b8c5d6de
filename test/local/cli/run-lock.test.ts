import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { acquireRunLock, RUN_LOCK_FILE, type RunLockResult } from '../../../local/cli/run-lock.js';

const RUN_LOCK_MODULE = fileURLToPath(new URL('../../../local/cli/run-lock.ts', import.meta.url));

let runsDir = '';
beforeEach(async () => {
  runsDir = await mkdtemp(join(tmpdir(), 'run-lock-'));
});
afterEach(async () => {
  await rm(runsDir, { recursive: true, force: true });
});

const lockPath = (runId: string) => join(runsDir, runId, RUN_LOCK_FILE);

function writeLock(runId: string, content: string): void {
  mkdirSync(join(runsDir, runId), { recursive: true });
  writeFileSync(lockPath(runId), content);
}

/** The pid of a process that has ended. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid;
}

function acquire(runId: string): RunLockResult {
  return acquireRunLock({ runsDir, runId, reportFile: 'report.json' });
}

function released(result: RunLockResult): RunLockResult {
  if (result.kind === 'locked') result.lock.release();
  return result;
}

describe('acquireRunLock', () => {
  it('creates the lock holding this process’s pid, and release removes it', () => {
    // Act
    const result = acquire('r1');

    // Assert
    expect(result.kind).toBe('locked');
    expect(readFileSync(lockPath('r1'), 'utf8')).toBe(`${process.pid}\n`);
    released(result);
    expect(existsSync(lockPath('r1'))).toBe(false);
  });

  it('fails when the run id is in use by a running process, naming --run-id and the process', () => {
    // Prepare: the first run holds the lock.
    const first = acquire('r1');

    // Act
    const second = acquire('r1');

    // Assert
    expect(second).toEqual({
      kind: 'refused',
      message:
        `--run-id: got "r1", which a run in process ${process.pid} is using (lock ${lockPath('r1')}), ` +
        'expected a run id no other run uses: choose another --run-id, or wait for that run to end',
    });
    expect(readFileSync(lockPath('r1'), 'utf8')).toBe(`${process.pid}\n`);
    released(first);
  });

  it('fails when the run id already has a report, naming --run-id and the report, and leaves no lock', () => {
    // Prepare
    mkdirSync(join(runsDir, 'r1'));
    writeFileSync(join(runsDir, 'r1', 'report.json'), '{}');

    // Act
    const result = acquire('r1');

    // Assert
    expect(result).toEqual({
      kind: 'refused',
      message:
        `--run-id: got "r1", which already has a report (${join(runsDir, 'r1', 'report.json')}), expected a run id ` +
        'not used before: choose another --run-id (or leave it out for a new one), or move that run folder away',
    });
    expect(existsSync(lockPath('r1'))).toBe(false);
  });

  it('takes over the lock of a process that is no longer running, with a notice', () => {
    // Prepare: a run killed with SIGKILL leaves its lock behind.
    const pid = deadPid();
    writeLock('r1', `${pid}\n`);

    // Act
    const result = acquire('r1');

    // Assert
    expect(result.kind === 'locked' ? result.notice : result.message).toBe(
      `Removed the lock of run r1 left by process ${pid}, which is no longer running (${lockPath('r1')})`,
    );
    expect(readFileSync(lockPath('r1'), 'utf8')).toBe(`${process.pid}\n`);
    released(result);
  });

  it('fails when the lock has no pid yet (a run starting now)', () => {
    // Prepare
    writeLock('r1', '');

    // Act
    const result = acquire('r1');

    // Assert
    expect(result.kind === 'refused' ? result.message : 'locked').toMatch(
      /^--run-id: got "r1", which a run starting now is using/,
    );
  });

  it('takes over a lock left without a pid for longer than a run takes to write it', () => {
    // Prepare
    writeLock('r1', '');
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(lockPath('r1'), minuteAgo, minuteAgo);

    // Act
    const result = acquire('r1');

    // Assert
    expect(result.kind === 'locked' ? result.notice : result.message).toBe(
      `Removed the lock of run r1 left by process (none), which is no longer running (${lockPath('r1')})`,
    );
    released(result);
  });

  it('leaves alone a lock another run has taken since this one was released', () => {
    // Prepare
    const first = acquire('r1');
    writeFileSync(lockPath('r1'), '4242\n');

    // Act
    released(first);

    // Assert
    expect(readFileSync(lockPath('r1'), 'utf8')).toBe('4242\n');
  });

  it('releases the lock when the process ends through process.exit (a forced second Ctrl-C)', () => {
    // Act: a process that takes the lock and exits as the second signal makes it.
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { acquireRunLock } = await import(${JSON.stringify(RUN_LOCK_MODULE)});
         const result = acquireRunLock({ runsDir: ${JSON.stringify(runsDir)}, runId: 'r1', reportFile: 'report.json' });
         process.stdout.write(result.kind);
         process.exit(130);`,
      ],
      { encoding: 'utf8' },
    );

    // Assert
    expect([child.status, child.stdout, child.stderr]).toEqual([130, 'locked', '']);
    expect(existsSync(lockPath('r1'))).toBe(false);
  });
});
