import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../handlers/contracts/errors.js';
import { describeConfigProblem, InvalidOptimizerConfigError } from '../../infra/optimizer-config.js';

/**
 * How `cdk synth` reports a mistake in the config file: its message alone, exit code 1, not an
 * uncaught error's stack trace through the app's code with the message in the middle.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('describeConfigProblem', () => {
  it('gives the message of a refused config file', () => {
    // Act
    const problem = describeConfigProblem(
      new InvalidOptimizerConfigError('/repo/optimizer.config.json: invalid config\n  stackName: got 1'),
    );

    // Assert
    expect(problem).toBe('/repo/optimizer.config.json: invalid config\n  stackName: got 1');
  });

  it('gives the message of a schedule whose run input the workflow refuses', () => {
    // Prepare: what RunSchedules throws for a bad input.
    const cause = new InvalidRunInputError([{ field: 'loadPlan', given: 'nothing', expected: 'object' }]);
    const error = new Error(`RunSchedules "nightly" (optimization).input: ${cause.message}`, { cause });

    // Act
    const problem = describeConfigProblem(error);

    // Assert
    expect(problem).toBe(
      'RunSchedules "nightly" (optimization).input: Invalid run input: loadPlan: got nothing, expected object',
    );
  });

  it('refuses to hide any other error, whose stack trace is worth reading', () => {
    // Act
    const problem = describeConfigProblem(new TypeError('x is undefined'));

    // Assert
    expect(problem).toBeUndefined();
  });
});

describe('infra/bin/app.ts with a bad config file', () => {
  it('fails with exit code 1 and prints every bad field alone, without a stack trace', () => {
    // Prepare
    const folder = mkdtempSync(join(tmpdir(), 'config-problems-'));
    const configFile = join(folder, 'optimizer.config.json');
    writeFileSync(
      configFile,
      JSON.stringify({ schedules: [{ name: 'nightly', workflow: 'optimization', expression: 'every day' }] }),
    );

    // Act: as `cdk synth -c configFile=…` runs the app (cdk.json's "app", context in the environment).
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'infra/bin/app.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        ...process.env,
        CDK_CONTEXT_JSON: JSON.stringify({ configFile }),
        CDK_OUTDIR: join(folder, 'cdk.out'),
      },
    });

    // Assert
    expect([result.status, result.stderr]).toEqual([
      1,
      `${configFile}: invalid config\n` +
        '  schedules[0].expression: got "every day", expected rate(<value> <unit>) or cron(<minutes> <hours> <day> <month> <weekday> <year>)\n' +
        '  schedules[0].input: got {"name":"nightly","workflow":"optimization","expression":"every day"}, expected exactly one of "input" (the document itself) or "inputFile" (its path, relative to the config file)\n',
    ]);
  }, 60_000);
});
