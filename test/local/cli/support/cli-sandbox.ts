import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from '@jest/globals';
import type { MachineLoadSample } from '../../../../local/platform/machine-load.js';

/** Readings of a machine with nothing else running: no core taken, no steal. */
export const QUIET_MACHINE = (): MachineLoadSample => ({ load1: 0, running: 1 });

/**
 * A fresh working directory per test for the local CLIs, with captured stdout/stderr and a helper
 * that writes the run input file. Call at the top of a test file: it registers its own hooks.
 */
export function cliSandbox(prefix: string) {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return {
    dir: (): string => dir,
    capture() {
      const out: string[] = [];
      const err: string[] = [];
      return {
        io: {
          stdout: { write: (text: string) => out.push(text) },
          stderr: { write: (text: string) => err.push(text) },
          cwd: dir,
          // A quiet machine: a run's report never depends on how busy the machine running the test is.
          sampleMachineLoad: QUIET_MACHINE,
        },
        stdout: () => out.join(''),
        stderr: () => err.join(''),
      };
    },
    /** Writes `input.json` (a string as is, anything else as JSON) and returns its path. */
    async inputFile(document: unknown): Promise<string> {
      const path = join(dir, 'input.json');
      await writeFile(path, typeof document === 'string' ? document : JSON.stringify(document));
      return path;
    },
  };
}
