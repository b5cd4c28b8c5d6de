import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../core/contracts/errors.js';
import { describeConfigProblem, InvalidOptimizerConfigError } from '../../infra/optimizer-config.js';

/**
 * How `cdk synth` reports a mistake in the config file: its message alone, exit code 1, not an
 * uncaught error's stack trace through the app's code with the message in the middle.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EXAMPLE_INPUT = join(ROOT, 'examples', 'cpu-sweep.json');

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
  it('fails when the time zone, janitor.maxAgeHours and schedule names are wrong: exit 2, one list, before any bundling', () => {
    // Prepare: the mistakes that used to end the synth with a stack trace, some after bundling.
    const folder = mkdtempSync(join(tmpdir(), 'config-problems-'));
    const configFile = join(folder, 'optimizer.config.json');
    const schedule = { workflow: 'optimization', expression: 'cron(0 2 * * ? *)', inputFile: EXAMPLE_INPUT };
    writeFileSync(
      configFile,
      JSON.stringify({
        schedules: [
          { name: 'nightly', timeZone: 'Europe/Pari', ...schedule },
          { name: 'nightly', ...schedule },
          { name: 'nightly/cpu', ...schedule },
        ],
        janitor: { maxAgeHours: 10_000 },
      }),
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
      2,
      `${configFile}: invalid config\n` +
        '  schedules[0].timeZone: got "Europe/Pari", expected an IANA time zone name such as "Europe/Paris", "America/New_York" or "UTC"\n' +
        '  schedules[2].name: got "nightly/cpu", expected 1 to 64 letters, digits, "-", "_" or "." (EventBridge Scheduler names)\n' +
        '  schedules[1].name: got "nightly", expected a name no other schedule uses (schedules[0] is named so too)\n' +
        '  janitor.maxAgeHours: got 10000, expected a number of hours from 49 (more than the longest execution timeout) to 2160 (90 days)\n',
    ]);
    // Nothing was bundled and no stack was built: no asset, no template (the App's own exit hook
    // writes the manifest of an app without stacks).
    expect(
      readdirSync(join(folder, 'cdk.out')).filter((name) => /^asset\.|\.template\.json$/.test(name)),
    ).toEqual([]);
  }, 60_000);

  it('fails with exit code 2 and prints every bad field alone, without a stack trace', () => {
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
      2,
      `${configFile}: invalid config\n` +
        '  schedules[0].expression: got "every day", expected "rate(<value> <unit>)" or "cron(<minutes> <hours> <day> <month> <weekday> <year>)"\n' +
        '  schedules[0].input: got {"name":"nightly","workflow":"optimization","expression":"every day"}, expected exactly one of "input" (the document itself) or "inputFile" (its path, relative to the config file)\n',
    ]);
  }, 60_000);
});
