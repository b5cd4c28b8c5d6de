import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { runAsyncCli } from '../../../local/cli/async/main.js';
import { runCli } from '../../../local/cli/main.js';
import { RUN_LOCK_FILE } from '../../../local/cli/run-lock.js';
import type { CliIo, CliRunOutcome } from '../../../local/cli/workflow-cli.js';
import { cliSandbox } from './support/cli-sandbox.js';

/**
 * A local run id is taken while a run holds it, and spent once its report exists: both local CLIs
 * refuse it with exit code 2, naming --run-id, before anything of the run starts.
 */

const sandbox = cliSandbox('run-id-in-use-');
const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));

const CLIS: readonly {
  readonly name: string;
  readonly run: (argv: readonly string[], io: CliIo) => Promise<CliRunOutcome>;
  readonly input: string;
  readonly report: string;
}[] = [
  { name: 'npm start', run: runCli, input: join(EXAMPLES, 'local.json'), report: 'report.json' },
  {
    name: 'npm run start:async',
    run: runAsyncCli,
    input: join(EXAMPLES, 'local-async.json'),
    report: join('async', 'summary.json'),
  },
];

describe.each(CLIS)('$name with a run id already used', ({ run, input, report }) => {
  it('fails when two local runs use the same run id: the second is refused while the first holds it', async () => {
    // Prepare: the first run's lock, held by a live process (this one).
    const { io, stderr } = sandbox.capture();
    const runFolder = join(sandbox.dir(), 'runs', 'twice');
    mkdirSync(runFolder, { recursive: true });
    writeFileSync(join(runFolder, RUN_LOCK_FILE), `${process.pid}\n`);

    // Act
    const outcome = await run(['--input', input, '--run-id', 'twice', '--store', 'store'], io);

    // Assert
    expect([outcome.exitCode, outcome.serverPids]).toEqual([2, []]);
    expect(stderr()).toBe(
      `--run-id: got "twice", which a run in process ${process.pid} is using (lock runs/twice/${RUN_LOCK_FILE}), ` +
        'expected a run id no other run uses: choose another --run-id, or wait for that run to end\n',
    );
    expect(readFileSync(join(runFolder, RUN_LOCK_FILE), 'utf8')).toBe(`${process.pid}\n`);
  });

  it('fails when the run id already has a report, leaving its folder as it was', async () => {
    // Prepare
    const { io, stderr } = sandbox.capture();
    const runFolder = join(sandbox.dir(), 'runs', 'done');
    mkdirSync(join(runFolder, 'async'), { recursive: true });
    writeFileSync(join(runFolder, report), '{"earlier":true}');

    // Act
    const outcome = await run(['--input', input, '--run-id', 'done', '--store', 'store'], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toBe(
      `--run-id: got "done", which already has a report (${join('runs', 'done', report)}), expected a run id ` +
        'not used before: choose another --run-id (or leave it out for a new one), or move that run folder away\n',
    );
    expect(readFileSync(join(runFolder, report), 'utf8')).toBe('{"earlier":true}');
    expect(existsSync(join(runFolder, RUN_LOCK_FILE))).toBe(false);
  });

  it('fails when --runs is a file, naming --runs, before anything of the run starts', async () => {
    // Prepare
    const { io, stderr } = sandbox.capture();
    writeFileSync(join(sandbox.dir(), 'not-a-folder'), 'x');

    // Act
    const outcome = await run(['--input', input, '--run-id', 'r1', '--runs', 'not-a-folder'], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toBe(
      "--runs: got not-a-folder, which cannot hold the run's folder (Error: ENOTDIR: not a directory, mkdir " +
        `'${join(sandbox.dir(), 'not-a-folder', 'r1')}'), expected a folder this user can write\n`,
    );
  });
});
