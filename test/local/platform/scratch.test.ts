import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { processScratchDir, scratchDir, sweepOrphanedScratch } from '../../../local/platform/scratch.js';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'scratch-test-'));
  roots.push(root);
  return root;
}

/** A real process that creates its scratch folder, prints it, then waits to be killed. */
async function scratchOfKilledProcess(): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      "const { scratchDir } = await import('./local/platform/scratch.ts'); console.log(scratchDir('model-host')); setInterval(() => {}, 1000);",
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const created = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => {
      resolve(chunk.toString().trim());
    });
    child.once('exit', (code) => {
      reject(new Error(`the child exited (${String(code)}) before creating its folder`));
    });
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  return created;
}

describe('local scratch folders', () => {
  it("keeps a killed run's folder until the next sweep, which removes it", async () => {
    // Arrange
    const leftover = await scratchOfKilledProcess();
    const ownerFolder = join(leftover, '..');
    expect(existsSync(leftover)).toBe(true);

    // Act
    const swept = sweepOrphanedScratch();

    // Assert
    expect(swept).toContain(ownerFolder);
    expect(existsSync(ownerFolder)).toBe(false);
  }, 30_000);

  it('leaves the folders of live processes, this one included', () => {
    // Arrange
    const mine = scratchDir('compile');
    const root = tempRoot();
    const alive = join(root, `${process.ppid}-abc`);
    const gone = join(root, '2147483646-abc');
    const foreign = join(root, 'not-a-run');
    for (const dir of [alive, gone, foreign]) mkdirSync(dir);

    // Act
    sweepOrphanedScratch();
    const swept = sweepOrphanedScratch(root);

    // Assert
    expect(existsSync(mine)).toBe(true);
    expect(mine.startsWith(processScratchDir())).toBe(true);
    expect(swept).toEqual([gone]);
    expect(readdirSync(root).sort()).toEqual([`${process.ppid}-abc`, 'not-a-run']);
  });
});
