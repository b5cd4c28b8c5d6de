import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where local runs keep their temporary files (extracted model copies, compilation work folders,
 * the synthesized cloud assembly): one folder per process, `<tmp>/mso-local/<pid>-<suffix>/`.
 *
 * A process removes its folder when it exits; one killed with SIGKILL cannot, so every local CLI
 * sweeps, when it starts, the folders whose owner process is gone (`sweepOrphanedScratch`). The
 * owner is read from the folder's name, so no other file needs to survive the kill.
 */

export const SCRATCH_ROOT_NAME = 'mso-local';

let processScratch: string | undefined;

/** The root of every process's scratch folder. */
export function scratchRoot(): string {
  return join(tmpdir(), SCRATCH_ROOT_NAME);
}

/** This process's scratch folder, created on first use and removed when the process exits. */
export function processScratchDir(): string {
  if (processScratch !== undefined) return processScratch;
  mkdirSync(scratchRoot(), { recursive: true });
  const dir = mkdtempSync(join(scratchRoot(), `${process.pid}-`));
  processScratch = dir;
  process.once('exit', () => {
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** A new folder inside this process's scratch folder, e.g. `scratchDir('model-host')`. */
export function scratchDir(kind: string): string {
  return mkdtempSync(join(processScratchDir(), `${kind}-`));
}

/** Whether a process with this id exists (signal 0 checks without signalling). */
function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the scratch folders whose owner process is gone (a run killed with SIGKILL), and returns
 * their paths. Folders of live processes, this one included, are left alone.
 */
export function sweepOrphanedScratch(root: string = scratchRoot()): string[] {
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return [];
  }
  const swept: string[] = [];
  for (const entry of entries) {
    const pid = Number(/^(\d+)-/.exec(entry)?.[1]);
    if (!Number.isSafeInteger(pid) || pid === process.pid || isProcessAlive(pid)) continue;
    const path = join(root, entry);
    rmSync(path, { recursive: true, force: true });
    swept.push(path);
  }
  return swept;
}
