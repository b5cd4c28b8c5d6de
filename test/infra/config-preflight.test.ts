import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { configFileOfCdkArgs } from '../../infra/config-preflight.js';
import { InvalidOptimizerConfigError, parseOptimizerConfig } from '../../infra/optimizer-config.js';

/**
 * `npm run synth` and `npm run deploy` check the config file before the CDK CLI runs: the CLI
 * reports a failed app as its own exit code 1, so the check's exit code 2 and its list of issues
 * must come from a step of its own.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EXAMPLE_INPUT = join(ROOT, 'examples', 'cpu-sweep.json');

/** A model-approval template input the trigger accepts (the package fills the model's URI). */
const TEMPLATE_INPUT = {
  model: { framework: 'onnx', inputShape: { input: [1, 3] } },
  payload: { uri: 's3://your-artifacts-bucket/payloads/p.json' },
  candidates: [{ instanceType: 'ml.c5.xlarge' }],
  loadPlan: { steps: [1] },
  sla: { p95LatencyMs: 100 },
};

function configProblem(document: unknown): string {
  try {
    parseOptimizerConfig(document, '/repo/optimizer.config.json');
  } catch (error) {
    if (error instanceof InvalidOptimizerConfigError) return error.message;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe('the model-approval trigger in the config file', () => {
  it('fails when a model package group name is not one, with the schema’s other issues', () => {
    // Act
    const problem = configProblem({
      stackName: '1st',
      modelApproval: { modelPackageGroups: ['churn_xgboost'], template: { input: TEMPLATE_INPUT } },
    });

    // Assert
    expect(problem.split('\n').slice(1)).toEqual([
      '  stackName: got "1st", expected a letter, then letters, digits or "-", 128 characters at most (CloudFormation stack names)',
      '  modelApproval.modelPackageGroups[0]: got "churn_xgboost", expected a model package group name: 1–63 letters, digits and dashes, starting and ending with a letter or digit',
    ]);
  });

  it('fails when the template cannot make a run, in one list with a schedule’s bad input', () => {
    // Act
    const problem = configProblem({
      schedules: [
        {
          name: 'nightly',
          workflow: 'optimization',
          expression: 'rate(1 day)',
          input: { ...TEMPLATE_INPUT },
        },
      ],
      modelApproval: {
        modelPackageGroups: ['churn-xgboost'],
        template: { input: { ...TEMPLATE_INPUT, payload: { uri: 'file:///tmp/p.json' } } },
      },
    });

    // Assert: the schedule's input lacks model.artifactUri; the template points at a local file.
    expect(problem.split('\n').slice(1)).toEqual([
      expect.stringMatching(/^ {2}schedules\[0\]\.input\.model\.artifactUri: got nothing/),
      '  modelApproval.template.input.payload.uri: got "file:///tmp/p.json", expected an s3:// URI (file:// works in local mode only, and this run starts on AWS)',
    ]);
  });

  it('fails when the template file’s JSON is too large for the Lambda environment, naming the file', () => {
    // Prepare
    const folder = mkdtempSync(join(tmpdir(), 'config-preflight-'));
    const tags = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`tag-${i}`, 'v'.repeat(80)]));
    writeFileSync(join(folder, 'template.json'), JSON.stringify({ input: { ...TEMPLATE_INPUT, tags } }));

    // Act
    let problem = '';
    try {
      parseOptimizerConfig(
        { modelApproval: { modelPackageGroups: ['churn-xgboost'], templateFile: 'template.json' } },
        join(folder, 'optimizer.config.json'),
      );
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }

    // Assert
    expect(problem).toMatch(
      /\n {2}modelApproval\.templateFile \(template\.json\): got \d+ characters of JSON, expected at most 3000: it travels in a Lambda environment variable/,
    );
  });
});

describe('configFileOfCdkArgs', () => {
  it.each([
    [['synth', '-c', 'configFile=a.json'], 'a.json'],
    [['deploy', '--context', 'configFile=b.json', '--all'], 'b.json'],
    [['synth', '--context=configFile=c.json'], 'c.json'],
    [['synth', '-c', 'apiLogging=off', '-c', 'configFile=d.json', '-c', 'configFile=e.json'], 'e.json'],
  ])('reads the config file the CLI would hand the app from %j', (args, expected) => {
    // Act
    const file = configFileOfCdkArgs(args, { configFile: 'from-cdk-json.json' });

    // Assert
    expect(file).toBe(expected);
  });

  it('falls back on cdk.json’s context, then on nothing', () => {
    // Act
    const fromCdkJson = configFileOfCdkArgs(['synth', '-c', 'apiLogging=off'], { configFile: 'x.json' });
    const none = configFileOfCdkArgs(['synth'], { other: 1 });

    // Assert
    expect([fromCdkJson, none]).toEqual(['x.json', undefined]);
  });
});

describe('npm run synth with a bad config file', () => {
  it('fails with exit code 2 and every bad field, the trigger’s among them, before the CDK CLI runs', () => {
    // Prepare
    const folder = mkdtempSync(join(tmpdir(), 'config-preflight-'));
    const configFile = join(folder, 'optimizer.config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        schedules: [
          {
            name: 'nightly',
            workflow: 'optimization',
            expression: 'cron(0 2 * * ? *)',
            timeZone: 'Europe/Pari',
            inputFile: EXAMPLE_INPUT,
          },
        ],
        modelApproval: { modelPackageGroups: ['churn_xgboost'], template: { input: TEMPLATE_INPUT } },
      }),
    );
    const outdir = join(folder, 'cdk.out');

    // Act
    const result = spawnSync(
      'npm',
      ['run', '-s', 'synth', '--', '-c', `configFile=${configFile}`, '-o', outdir],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
      },
    );

    // Assert
    expect([result.status, result.stderr]).toEqual([
      2,
      `${configFile}: invalid config\n` +
        '  schedules[0].timeZone: got "Europe/Pari", expected an IANA time zone name such as "Europe/Paris", "America/New_York" or "UTC"\n' +
        '  modelApproval.modelPackageGroups[0]: got "churn_xgboost", expected a model package group name: 1–63 letters, digits and dashes, starting and ending with a letter or digit\n',
    ]);
    // The CLI never ran: it would have created the output folder.
    expect(existsSync(outdir)).toBe(false);
  }, 60_000);
});
