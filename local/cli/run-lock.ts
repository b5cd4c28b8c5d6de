import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * One local run per run id, as one execution per name on Step Functions: a run holds
 * `<runs>/<run id>/.lock` while it runs, and a run id whose report exists is spent. Without it, two
 * runs with the same id write their measurements under the same prefix and both "succeed" with a
 * report that mixes them.
 *
 * The lock file is created with O_CREAT | O_EXCL (`wx`), so of two runs started at once exactly
 * one gets it, and it holds the owner's pid: a lock whose process is gone (killed with SIGKILL, or
 * a machine that restarted) is removed with a notice and taken over.
 */

export const RUN_LOCK_FILE = '.lock';

/** A lock held by this process: `release` removes it (once; later calls do nothing). */
export interface RunLock {
  readonly path: string;
  release(): void;
}

export type RunLockResult =
  | { readonly kind: 'locked'; readonly lock: RunLock; readonly notice?: string }
  | { readonly kind: 'refused'; readonly message: string };

export interface RunLockOptions {
  /** The runs folder (`--runs`), absolute. */
  readonly runsDir: string;
  readonly runId: string;
  /** The workflow's report inside the run's folder (`report.json`, `async/summary.json`). */
  readonly reportFile: string;
  /** How the user shows the path (relative to the working directory when inside it). */
  readonly display?: (path: string) => string;
  /** @default process.pid */
  readonly pid?: number;
  /** @default signal 0: alive unless ESRCH */
  readonly isAlive?: (pid: number) => boolean;
}

/** Takes the run id's lock, or says why the run id cannot be used (naming `--run-id`). */
export function acquireRunLock(options: RunLockOptions): RunLockResult {
  const { runId } = options;
  const display = options.display ?? ((path: string) => path);
  const pid = options.pid ?? process.pid;
  const isAlive = options.isAlive ?? isProcessAlive;
  const folder = join(options.runsDir, runId);
  const path = join(folder, RUN_LOCK_FILE);
  mkdirSync(folder, { recursive: true });
  let notice: string | undefined;
  // A second attempt only after removing a dead process's lock: another run may take it first.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    if (createExclusively(path, pid)) {
      const lock = heldLock(path, pid);
      const report = join(folder, options.reportFile);
      if (existsSync(report)) {
        lock.release();
        return {
          kind: 'refused',
          message:
            `--run-id: got "${runId}", which already has a report (${display(report)}), expected a run id ` +
            'not used before: choose another --run-id (or leave it out for a new one), or move that run folder away',
        };
      }
      return { kind: 'locked', lock, ...(notice === undefined ? {} : { notice }) };
    }
    const owner = ownerOf(path);
    if (owner === undefined ? isFresh(path) : isAlive(owner)) {
      return {
        kind: 'refused',
        message:
          `--run-id: got "${runId}", which a run ${owner === undefined ? 'starting now' : `in process ${owner}`} ` +
          `is using (lock ${display(path)}), expected a run id no other run uses: choose another --run-id, ` +
          'or wait for that run to end',
      };
    }
    removeIfStillOf(path, owner);
    notice = `Removed the lock of run ${runId} left by process ${owner ?? '(none)'}, which is no longer running (${display(path)})`;
  }
  return {
    kind: 'refused',
    message: `--run-id: got "${runId}", whose lock ${display(path)} another run took meanwhile, expected a run id no other run uses`,
  };
}

/** Creates the file only if it does not exist, and writes the pid in it; false when it exists. */
function createExclusively(path: string, pid: number): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if (isCode(error, 'EEXIST')) return false;
    throw error;
  }
  try {
    writeSync(fd, `${pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * A lock without a pid yet: the run that created it writes its pid right after (microseconds), so
 * only a lock that stayed empty for seconds was left by a process that died at that instant.
 */
function isFresh(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < EMPTY_LOCK_GRACE_MS;
  } catch {
    return false;
  }
}

const EMPTY_LOCK_GRACE_MS = 10_000;

function heldLock(path: string, pid: number): RunLock {
  let held = true;
  const release = (): void => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    removeIfStillOf(path, pid);
  };
  // `process.exit` (a second Ctrl-C forces the exit) skips `finally` blocks but not 'exit' listeners.
  process.on('exit', release);
  return { path, release };
}

/** The pid a lock file holds, or undefined (gone, empty, not a pid). */
function ownerOf(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Removes the lock only while it is still `owner`'s: never a lock another run has taken since. */
function removeIfStillOf(path: string, owner: number | undefined): void {
  if (ownerOf(path) !== owner) return;
  try {
    unlinkSync(path);
  } catch (error) {
    if (!isCode(error, 'ENOENT')) throw error;
  }
}

/** Signal 0 checks the process exists: ESRCH means gone; EPERM means alive under another user. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return !isCode(error, 'ESRCH');
  }
}

/** By shape, not `instanceof`: errors of node's fs can come from another realm (jest's VM contexts). */
function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
