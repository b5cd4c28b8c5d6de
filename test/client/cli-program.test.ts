import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type CliIo, progressLine, runCli, USAGE } from '../../client/cli-program.js';
import { RunApiClient } from '../../client/run-api-client.js';
import type { RunStatus } from '../../handlers/run-status/run-api-contract.js';
import { FakeRunApi, TEST_CREDENTIALS, TEST_REGION } from './support/fake-run-api.js';

const EXAMPLE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'cpu-sweep.json');
const EXECUTION_ARN = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly';
const STARTED = {
  runId: 'nightly',
  executionArn: EXECUTION_ARN,
  startDate: 1772352000.5,
  statusUrl: 'https://abc123.execute-api.us-east-1.amazonaws.com/v1/runs/nightly',
};

function runStatus(status: RunStatus['status'], succeeded: number): RunStatus {
  return {
    runId: 'nightly',
    workflow: 'optimization',
    status,
    executionArn: EXECUTION_ARN,
    startDate: '2026-03-01T08:00:00.000Z',
    progress: {
      phase:
        { RUNNING: 'Benchmark each candidate', SUCCEEDED: 'Run succeeded' }[status as string] ?? 'Run failed',
      items: { label: 'candidates', total: 4, started: 4, succeeded, failed: 0, running: 4 - succeeded },
      historyEventsRead: 80,
    },
    ...(status === 'SUCCEEDED'
      ? {
          report: {
            json: 's3://mso-artifacts/runs/nightly/report.json',
            markdown: 's3://mso-artifacts/runs/nightly/report.md',
            html: 's3://mso-artifacts/runs/nightly/report.html',
          },
        }
      : {}),
  };
}

let api: FakeRunApi;

beforeAll(async () => {
  api = await FakeRunApi.start();
});

afterAll(async () => {
  await api.close();
});

/** The program against the fake API, its output captured. */
async function run(...argv: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io: CliIo = {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: {},
    createClient: (options) =>
      new RunApiClient({ ...options, region: options.region ?? TEST_REGION, credentials: TEST_CREDENTIALS }),
    readFile: (path) => readFile(path, 'utf8'),
  };
  const exitCode = await runCli(argv, io);
  return { exitCode, stdout, stderr };
}

describe('npm run runs', () => {
  it('start: sends the input file with the run id and prints the started run', async () => {
    // Prepare
    api.answer(() => ({ status: 200, body: STARTED }));

    // Act
    const { exitCode, stdout } = await run(
      'start',
      '--api',
      api.url,
      '--input',
      EXAMPLE,
      '--run-id',
      'nightly',
    );

    // Assert
    expect(exitCode).toBe(0);
    expect(JSON.parse(stdout.join('\n'))).toEqual(STARTED);
    expect(JSON.parse(api.requests[0]?.body ?? '')).toEqual({
      runId: 'nightly',
      input: JSON.parse(await readFile(EXAMPLE, 'utf8')),
    });
    expect(api.requests[0]?.signatureValid).toBe(true);
  });

  it('start --wait: follows the run on stderr and exits 0 once it succeeded', async () => {
    // Prepare
    api.answerInTurn(
      { status: 200, body: STARTED },
      { status: 200, body: runStatus('RUNNING', 2) },
      { status: 200, body: runStatus('SUCCEEDED', 4) },
    );

    // Act
    const { exitCode, stdout, stderr } = await run(
      'start',
      '--api',
      api.url,
      '--input',
      EXAMPLE,
      '--run-id',
      'nightly',
      '--wait',
      '--poll-seconds',
      '0.01',
    );

    // Assert
    expect(exitCode).toBe(0);
    expect(stderr).toEqual([
      'nightly RUNNING · Benchmark each candidate · candidates 2/4 done, 2 running',
      'nightly SUCCEEDED · Run succeeded · candidates 4/4 done, 0 running · report: s3://mso-artifacts/runs/nightly/report.html',
    ]);
    expect(api.requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
      'POST /v1/runs',
      'GET /v1/runs/nightly',
      'GET /v1/runs/nightly',
    ]);
    expect(stdout).toHaveLength(2);
  });

  it('start --wait: exits 1 when the run failed', async () => {
    // Prepare
    api.answerInTurn(
      { status: 200, body: STARTED },
      {
        status: 200,
        body: { ...runStatus('FAILED', 0), error: 'QuotaExceededError', cause: 'ml.g5.xlarge' },
      },
    );

    // Act
    const { exitCode, stderr } = await run(
      'start',
      '--api',
      api.url,
      '--input',
      EXAMPLE,
      '--wait',
      '--poll-seconds',
      '0.01',
    );

    // Assert
    expect(exitCode).toBe(1);
    expect(stderr.at(-1)).toContain('QuotaExceededError: ml.g5.xlarge');
  });

  it.each<[string, RunStatus['status'], string | undefined, number]>([
    ['partial', 'SUCCEEDED', undefined, 5],
    ['no-candidate-met-sla', 'FAILED', 'NoRecommendationError', 3],
    ['all-candidates-failed', 'FAILED', 'NoRecommendationError', 4],
  ])('start --wait: exits with the code of the outcome %s (%s)', async (outcome, status, error, code) => {
    // Prepare
    api.answerInTurn(
      { status: 200, body: STARTED },
      {
        status: 200,
        body: { ...runStatus(status, 4), outcome, ...(error === undefined ? {} : { error, cause: '{}' }) },
      },
    );

    // Act
    const { exitCode, stderr } = await run(
      'start',
      '--api',
      api.url,
      '--input',
      EXAMPLE,
      '--wait',
      '--poll-seconds',
      '0.01',
    );

    // Assert
    expect(exitCode).toBe(code);
    expect(stderr.at(-1)).toContain(`outcome: ${outcome}`);
  });

  it('start --wait: exits 2 when the run was refused for its input', async () => {
    // Prepare
    api.answerInTurn(
      { status: 200, body: STARTED },
      {
        status: 200,
        body: { ...runStatus('FAILED', 0), error: 'InvalidRunInputError', cause: 'model.artifactUri: …' },
      },
    );

    // Act
    const { exitCode } = await run(
      'start',
      '--api',
      api.url,
      '--input',
      EXAMPLE,
      '--wait',
      '--poll-seconds',
      '0.01',
    );

    // Assert
    expect(exitCode).toBe(2);
  });

  it('status: exits with the code of an ended run’s outcome, 0 while it runs', async () => {
    // Prepare
    api.answerInTurn(
      { status: 200, body: runStatus('RUNNING', 1) },
      { status: 200, body: { ...runStatus('SUCCEEDED', 4), outcome: 'partial' } },
    );

    // Act
    const running = await run('status', '--api', api.url, 'nightly');
    const ended = await run('status', '--api', api.url, 'nightly');

    // Assert
    expect([running.exitCode, ended.exitCode]).toEqual([0, 5]);
  });

  it('start: exits 1 and names the run id when it is taken', async () => {
    // Prepare
    api.answer(() => ({
      status: 409,
      body: { error: 'RunAlreadyExists', message: 'Execution Already Exists' },
    }));

    // Act
    const { exitCode, stderr } = await run(
      'start',
      '--api',
      api.url,
      '--input',
      EXAMPLE,
      '--run-id',
      'nightly',
    );

    // Assert
    expect(exitCode).toBe(1);
    expect(stderr).toEqual([expect.stringMatching(/^RunAlreadyExistsError: Run "nightly" already exists/)]);
  });

  it('status --async: prints the async run’s status', async () => {
    // Prepare
    api.answer(() => ({ status: 200, body: { ...runStatus('RUNNING', 1), workflow: 'async-inference' } }));

    // Act
    const { exitCode, stdout } = await run('status', '--api', api.url, '--async', 'nightly');

    // Assert
    expect(exitCode).toBe(0);
    expect(api.requests.map(({ path }) => path)).toEqual(['/v1/async-runs/nightly']);
    expect(JSON.parse(stdout.join('\n'))).toMatchObject({ workflow: 'async-inference', status: 'RUNNING' });
  });

  it('--help prints the usage and exits 0', async () => {
    // Act
    const { exitCode, stdout } = await run('--help');

    // Assert
    expect([exitCode, stdout]).toEqual([0, [USAGE]]);
  });

  it('fails with the usage when no API URL is given', async () => {
    // Act
    const { exitCode, stderr } = await run('status', 'nightly');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]).toMatch(/^got no --api, expected the RunApiUrl output \(or RUN_API_URL\)/);
  });

  it('fails with the usage when the input file is not JSON', async () => {
    // Act
    const { exitCode, stderr } = await run(
      'start',
      '--api',
      api.url,
      '--input',
      fileURLToPath(import.meta.url),
    );

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]).toMatch(/^--input .*cli-program\.test\.ts: got text that is not JSON/);
  });

  it('fails with the usage on an unknown command', async () => {
    // Act
    const { exitCode, stderr } = await run('restart', '--api', api.url);

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]).toMatch(/^got the command "restart", expected start or status/);
  });
});

describe('progressLine', () => {
  it('shows an async run’s batches and inputs, the inputs’ total not known yet', () => {
    // Prepare
    const progress = {
      phase: 'Process each batch',
      groups: { label: 'batches', total: 2, started: 2, succeeded: 1, failed: 0, running: 1 },
      items: { label: 'inputs', started: 5, succeeded: 3, failed: 1, running: 1 },
      historyEventsRead: 60,
    };

    // Act
    const line = progressLine({ ...runStatus('RUNNING', 0), workflow: 'async-inference', progress });

    // Assert
    expect(line).toBe(
      'nightly RUNNING · Process each batch · batches 1/2 done, 1 running · inputs 4/? done (1 failed), 1 running',
    );
  });

  it('shows the run’s error and cause once it failed', () => {
    // Act
    const line = progressLine({
      ...runStatus('FAILED', 1),
      error: 'QuotaExceededError',
      cause: 'ml.g5.xlarge quota is 0',
    });

    // Assert
    expect(line).toBe(
      'nightly FAILED · Run failed · candidates 1/4 done, 3 running · QuotaExceededError: ml.g5.xlarge quota is 0',
    );
  });
});
