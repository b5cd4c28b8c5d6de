import { mkdtempSync, writeFileSync } from 'node:fs';
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
import { buildServingOptimizerApp } from '../../infra/serving-optimizer-app.js';
import { createTestApp, TEST_ENV } from './app.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EXAMPLE = join(ROOT, 'optimizer.config.example.json');

/** Synth of the whole stack with its policy checks: a minute on a busy machine. */
const SYNTH_TIMEOUT_MS = 240_000;

describe('the optimizer config file', () => {
  it(
    'synthesizes the example’s schedule, e-mail, registry trigger, janitor cadence and API throttling without code',
    () => {
      // Prepare
      const config = loadOptimizerConfig('optimizer.config.example.json', ROOT);
      // Every check `cdk synth` runs: this configuration has resources the default stack lacks.
      const app = createTestApp({ builtinCloudFormationValidation: true });

      // Act
      const { stack } = buildServingOptimizerApp(app, TEST_ENV, config.stackProps, config.stackName);
      const template = Template.fromStack(stack);

      // Assert
      expect(stack.stackName).toBe('ServingOptimizer');
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
        '  schedules[0].expression: got "every day", expected rate(<value> <unit>) or cron(<minutes> <hours> <day> <month> <weekday> <year>)',
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
        'file (README, "Configuration without code")',
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
