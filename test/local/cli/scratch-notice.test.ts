import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { runCli } from '../../../local/cli/main.js';
import { scratchRoot } from '../../../local/platform/scratch.js';
import { cliSandbox } from './support/cli-sandbox.js';

/**
 * Every local CLI removes, when it starts, the temporary folders of processes that ended without
 * removing them. Jest ends its workers that way, so after `npm test` the first `npm start` used to
 * print "Removed the temporary files of 1 earlier local run(s) that were killed": a line about
 * runs nobody killed, for the user to learn to ignore.
 */

const sandbox = cliSandbox('scratch-notice-');
const { capture } = sandbox;

/** Above Linux's largest pid_max (2^22), so no process has it: its folder is an orphan. */
const GONE_PID = 4_194_304 + 4321;

function orphanedScratch(): string {
  const folder = join(scratchRoot(), `${GONE_PID}-notice`);
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** A run of an input file that does not exist: refused after the sweep, before anything starts. */
async function runMissingInput(...flags: string[]) {
  const { io, stdout, stderr } = capture();
  const exitCode = (await runCli(['--input', 'missing.json', ...flags], io)).exitCode;
  return { exitCode, stdout: stdout(), stderr: stderr() };
}

describe('the sweep of orphaned temporary folders', () => {
  it('removes them without a word by default', async () => {
    // Prepare
    const folder = orphanedScratch();

    // Act
    const { exitCode, stdout, stderr } = await runMissingInput();

    // Assert
    expect([exitCode, existsSync(folder), stdout]).toEqual([2, false, '']);
    expect(stderr).toMatch(/^Cannot read the run input .*missing\.json: [^\n]*; expected a JSON file\n$/);
  });

  it('says what it removed with --verbose', async () => {
    // Prepare
    const folder = orphanedScratch();

    // Act
    const { exitCode, stdout, stderr } = await runMissingInput('--verbose');

    // Assert
    expect([exitCode, existsSync(folder)]).toEqual([2, false]);
    expect(stdout).toMatch(/^Removed the temporary files of \d+ earlier local run\(s\) that were killed\n$/);
    expect(stderr).toMatch(/^Cannot read the run input /);
  });
});
