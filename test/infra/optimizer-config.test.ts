import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { Match, Template } from 'aws-cdk-lib/assertions';
import {
  InvalidOptimizerConfigError,
  loadOptimizerConfig,
  parseOptimizerConfig,
} from '../../infra/optimizer-config.js';
import { checkedApp } from '../support/checked-apps.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EXAMPLE = join(ROOT, 'optimizer.config.example.json');
const EXAMPLE_INPUT = join(ROOT, 'examples', 'cpu-sweep.json');

/** Reading the checked synthesis may synthesize it first, when no global set-up did. */
const SYNTH_TIMEOUT_MS = 240_000;

describe('the optimizer config file', () => {
  it(
    'synthesizes the example’s schedule, e-mail, registry trigger, janitor cadence and API throttling without code',
    () => {
      // Act: buildServingOptimizerApp(app, TEST_ENV, config.stackProps, config.stackName) of this
      // file, synthesized with every check `cdk synth` runs, as this configuration has resources the
      // default stack lacks (test/support/checked-apps.ts); a finding throws here.
      const synthesized = checkedApp('configExample');
      const template = Template.fromJSON(synthesized.template);

      // Assert
      expect(synthesized.stackName).toBe('ServingOptimizer');
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: 'cron(0 2 * * ? *)',
        ScheduleExpressionTimezone: 'Europe/Paris',
      });
      template.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'email',
        Endpoint: 'ml-platform@example.com',
      });
      template.hasResourceProperties('AWS::Events::Rule', {
        EventPattern: Match.objectLike({
          detail: Match.objectLike({ ModelPackageGroupName: ['churn-xgboost'] }),
        }),
      });
      template.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'rate(10 minutes)' });
      template.hasResourceProperties('AWS::ApiGateway::Stage', {
        MethodSettings: Match.arrayWith([
          Match.objectLike({ ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 }),
        ]),
      });
    },
    SYNTH_TIMEOUT_MS,
  );

  it('reads a schedule’s input from the file it names, relative to the config file', () => {
    // Act
    const config = loadOptimizerConfig(EXAMPLE);

    // Assert
    expect(config.stackProps.schedules?.[0]?.input).toMatchObject({
      name: 'ResNet-50 (PyTorch 2.0) on CPU instances, uncompiled vs Neo',
    });
  });

  it('fails naming every bad field, what it got and what it expects', () => {
    // Act
    const parse = () =>
      parseOptimizerConfig(
        {
          stackName: '1-stack',
          notificationEmails: ['not-an-address'],
          schedules: [{ name: 'nightly', workflow: 'optimization', expression: 'every day' }],
          apiThrottling: { rateLimit: 0, burstLimit: 10 },
          janitorCadence: 'rate(1 hour)',
        },
        '/repo/optimizer.config.json',
      );

    // Assert
    expect(parse).toThrow(InvalidOptimizerConfigError);
    expect(parse).toThrow(
      [
        '/repo/optimizer.config.json: invalid config',
        '  stackName: got "1-stack", expected a letter, then letters, digits or "-", 128 characters at most (CloudFormation stack names)',
        '  notificationEmails[0]: got "not-an-address", expected an e-mail address',
        '  schedules[0].expression: got "every day", expected "rate(<value> <unit>)" or "cron(<minutes> <hours> <day> <month> <weekday> <year>)"',
        '  schedules[0].input: got {"name":"nightly","workflow":"optimization","expression":"every day"}, expected exactly one of "input" (the document itself) or "inputFile" (its path, relative to the config file)',
        '  apiThrottling.rateLimit: got 0, expected a number of requests per second above 0',
        '  (input): got unknown field(s) "janitorCadence", expected only the documented fields (check the spelling)',
      ].join('\n'),
    );
  });

  it('fails when the janitor would sweep too rarely or too late for its hour after a run ends, naming the fields', () => {
    // Act
    const parse = () =>
      parseOptimizerConfig(
        { janitor: { schedule: 'rate(6 hours)', graceMinutes: 45 } },
        '/repo/optimizer.config.json',
      );

    // Assert
    expect(parse).toThrow(
      [
        '/repo/optimizer.config.json: invalid config',
        '  janitor.graceMinutes: got 45, expected a number of minutes from 5 to 30',
        '  janitor.schedule: got "rate(6 hours)", expected rate(<n> minutes), from rate(5 minutes) to rate(20 minutes)',
      ].join('\n'),
    );
  });

  it('fails when the schedules break Scheduler’s rules and the janitor’s age its range, listing every issue', () => {
    // Prepare: a valid run input, so that only the settings are wrong.
    const input = JSON.parse(readFileSync(EXAMPLE_INPUT, 'utf8')) as unknown;

    // Act
    const parse = () =>
      parseOptimizerConfig(
        {
          schedules: [
            {
              name: 'nightly',
              workflow: 'optimization',
              expression: 'cron(0 2 * * ? *)',
              timeZone: 'Europe/Pari',
              input,
            },
            { name: 'nightly', workflow: 'optimization', expression: 'rate(1 day)', timeZone: 'UTC', input },
            {
              name: 'nightly cpu/gpu',
              workflow: 'optimization',
              expression: 'at(2026-01-01T00:00:00)',
              input,
            },
            { name: 'x'.repeat(65), workflow: 'optimization', expression: 'rate(1 day)', input },
          ],
          janitor: { maxAgeHours: 5000 },
        },
        '/repo/optimizer.config.json',
      );

    // Assert
    expect(parse).toThrow(
      [
        '/repo/optimizer.config.json: invalid config',
        '  schedules[0].timeZone: got "Europe/Pari", expected an IANA time zone name such as "Europe/Paris", "America/New_York" or "UTC"',
        '  schedules[1].timeZone: got "UTC", expected no time zone with a rate(...) schedule: a time zone applies only to cron(...) expressions',
        '  schedules[2].name: got "nightly cpu/gpu", expected 1 to 64 letters, digits, "-", "_" or "." (EventBridge Scheduler names)',
        '  schedules[2].expression: got "at(2026-01-01T00:00:00)", expected "rate(<value> <unit>)" or "cron(<minutes> <hours> <day> <month> <weekday> <year>)"',
        `  schedules[3].name: got "${'x'.repeat(65)}", expected 1 to 64 letters, digits, "-", "_" or "." (EventBridge Scheduler names)`,
        '  schedules[1].name: got "nightly", expected a name no other schedule uses (schedules[0] is named so too)',
        '  janitor.maxAgeHours: got 5000, expected a number of hours from 49 (more than the longest execution timeout) to 2160 (90 days)',
      ].join('\n'),
    );
  });

  it('fails when janitor.maxAgeHours is not above the longest execution timeout', () => {
    // Act
    const parse = () => parseOptimizerConfig({ janitor: { maxAgeHours: 48 } }, '/repo/optimizer.config.json');

    // Assert
    expect(parse).toThrow(
      '  janitor.maxAgeHours: got 48, expected a number of hours from 49 (more than the longest execution timeout) to 2160 (90 days)',
    );
  });

  it('fails when the janitor is given a time zone, which its minutes-rate schedule cannot use', () => {
    // Act
    const parse = () =>
      parseOptimizerConfig({ janitor: { timeZone: 'Europe/Paris' } }, '/repo/optimizer.config.json');

    // Assert
    expect(parse).toThrow('  janitor: got unknown field(s) "timeZone"');
  });

  it('accepts the janitor range’s bounds, IANA zones with cron schedules and Scheduler’s name characters', () => {
    // Prepare
    const input = JSON.parse(readFileSync(EXAMPLE_INPUT, 'utf8')) as unknown;

    // Act
    const config = parseOptimizerConfig(
      {
        schedules: [
          {
            name: 'nightly.cpu_1-a',
            workflow: 'optimization',
            expression: 'cron(0 2 * * ? *)',
            timeZone: 'America/New_York',
            input,
          },
          {
            name: 'weekly',
            workflow: 'optimization',
            expression: 'cron(0 3 ? * MON *)',
            timeZone: 'UTC',
            input,
          },
        ],
        janitor: { maxAgeHours: 2160, schedule: 'rate(20 minutes)', graceMinutes: 30 },
      },
      '/repo/optimizer.config.json',
    );

    // Assert
    expect(config.stackProps.schedules?.map(({ name }) => name)).toEqual(['nightly.cpu_1-a', 'weekly']);
    expect(config.stackProps.janitor?.maxAgeHours).toBe(2160);
  });

  it('fails when a schedule’s run input is refused by its workflow, in the same list, before any construct', () => {
    // Act
    const parse = () =>
      parseOptimizerConfig(
        {
          schedules: [
            {
              name: 'nightly',
              workflow: 'optimization',
              expression: 'rate(1 day)',
              input: { candidates: [] },
            },
          ],
        },
        '/repo/optimizer.config.json',
      );

    // Assert
    expect(parse).toThrow(
      '/repo/optimizer.config.json: invalid config\n  schedules[0].input.loadPlan: got nothing, expected object\n',
    );
  });

  it('uses the defaults when there is no optimizer.config.json and the context names none', () => {
    // Prepare
    const folder = mkdtempSync(join(tmpdir(), 'optimizer-config-'));

    // Act
    const config = loadOptimizerConfig(undefined, folder);

    // Assert
    expect(config).toEqual({ stackProps: {} });
  });

  it('fails when the context names a config file that does not exist', () => {
    // Prepare
    const folder = mkdtempSync(join(tmpdir(), 'optimizer-config-'));

    // Act
    const load = () => loadOptimizerConfig('missing.json', folder);

    // Assert
    expect(load).toThrow(
      `CDK context configFile: got ${join(folder, 'missing.json')}, which does not exist; expected the config ` +
        'file (docs/starting-runs.md, "Configuration without code")',
    );
  });

  it('fails naming the file when it is not JSON', () => {
    // Prepare
    const folder = mkdtempSync(join(tmpdir(), 'optimizer-config-'));
    writeFileSync(join(folder, 'optimizer.config.json'), '{ schedules: [] }');

    // Act
    const load = () => loadOptimizerConfig(undefined, folder);

    // Assert
    expect(load).toThrow(new RegExp(`^${join(folder, 'optimizer.config.json')}: .* is not JSON`));
  });
});
