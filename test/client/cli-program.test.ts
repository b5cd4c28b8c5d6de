import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type CliIo,
  commandUsage,
  processIo,
  progressLine,
  runCli,
  USAGE,
} from '../../client/cli-program.js';
import { RunApiClient } from '../../client/run-api-client.js';
import type { RunStatus } from '../../core/contracts/run-api-contract.js';
import { FakeRunApi, TEST_CREDENTIALS, TEST_REGION } from './support/fake-run-api.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'cpu-sweep.json');
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

/** Files the program saved, by path (folder/name). */
let written: Map<string, string>;

/** The program against the fake API, its output captured; `io` replaces parts of its world. */
async function runWith(io: Partial<CliIo>, ...argv: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  written = new Map();
  const exitCode = await runCli(argv, {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: {},
    createClient: (options) =>
      new RunApiClient({ ...options, region: options.region ?? TEST_REGION, credentials: TEST_CREDENTIALS }),
    readFile: (path) => readFile(path, 'utf8'),
    writeFile: (folder, name, data) => {
      written.set(`${folder}/${name}`, Buffer.from(data).toString('utf8'));
      return Promise.resolve(`${folder}/${name}`);
    },
    fetch: (input, init) => globalThis.fetch(input, init),
    ...io,
  });
  return { exitCode, stdout, stderr };
}

function run(...argv: string[]) {
  return runWith({}, ...argv);
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
      '--json',
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
      `Started run nightly (${EXECUTION_ARN})`,
      'nightly RUNNING · Benchmark each candidate · candidates 2/4 done, 2 running',
      'nightly SUCCEEDED · Run succeeded · candidates 4/4 done, 0 running · report: s3://mso-artifacts/runs/nightly/report.html',
    ]);
    expect(api.requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
      'POST /v1/runs',
      'GET /v1/runs/nightly',
      'GET /v1/runs/nightly',
    ]);
    expect(stdout).toEqual([
      'nightly SUCCEEDED · Run succeeded · candidates 4/4 done, 0 running · report: s3://mso-artifacts/runs/nightly/report.html',
    ]);
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

  it('status and start --wait: fail with exit code 7 when the proof at the target did not hold', async () => {
    // Prepare
    const ended = { ...runStatus('SUCCEEDED', 4), outcome: 'recommended', proof: 'not-held' };
    api.answerInTurn(
      { status: 200, body: ended },
      { status: 200, body: STARTED },
      { status: 200, body: ended },
    );

    // Act
    const status = await run('status', '--api', api.url, 'nightly');
    const started = await run(
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
    expect([status.exitCode, started.exitCode]).toEqual([7, 7]);
    expect(status.stdout.at(-1)).toContain('outcome: recommended · proof at the target: not-held');
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
    const { exitCode, stdout } = await run('status', '--api', api.url, '--async', 'nightly', '--json');

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
    expect(stderr[0]).toMatch(
      /^got the command "restart", expected one of plan, start, status, list, stop, logs, report, compare, index, init\n/,
    );
  });
});

const LISTED = {
  runs: [
    {
      runId: 'nightly-2',
      workflow: 'optimization',
      status: 'FAILED',
      executionArn: `${EXECUTION_ARN}-2`,
      startDate: '2026-11-24T08:00:00.000Z',
      stopDate: '2026-11-24T09:00:00.000Z',
    },
  ],
  truncated: false,
};

describe('npm run runs: list, stop, logs, report', () => {
  it('list: sends the filters as the query, signed, and prints one line per run', async () => {
    // Prepare
    api.answer(() => ({ status: 200, body: LISTED }));

    // Act
    const { exitCode, stdout } = await run(
      'list',
      '--api',
      api.url,
      '--status',
      'failed',
      '--since',
      '2026-11-24',
      '--limit',
      '5',
    );

    // Assert
    expect(exitCode).toBe(0);
    expect(api.requests.map(({ method, path, search }) => `${method} ${path}${search}`)).toEqual([
      'GET /v1/runs?status=FAILED&since=2026-11-24T00%3A00%3A00.000Z&limit=5',
    ]);
    expect(api.requests[0]?.signatureValid).toBe(true);
    expect(stdout).toEqual(['nightly-2  FAILED  2026-11-24T08:00:00.000Z  2026-11-24T09:00:00.000Z']);
  });

  it('list --workflow async --json: lists the async runs and prints only the JSON document', async () => {
    // Prepare
    api.answer(() => ({ status: 200, body: { runs: [], truncated: false } }));

    // Act
    const { exitCode, stdout, stderr } = await run('list', '--api', api.url, '--workflow', 'async', '--json');

    // Assert
    expect(exitCode).toBe(0);
    expect(api.requests.map(({ path, search }) => `${path}${search}`)).toEqual(['/v1/async-runs']);
    expect(JSON.parse(stdout.join('\n'))).toEqual({ runs: [], truncated: false });
    expect(stderr).toEqual([]);
  });

  it('refuses a --status the API does not filter by, naming the accepted ones', async () => {
    // Act
    const { exitCode, stderr } = await run('list', '--api', api.url, '--status', 'done');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]).toMatch(
      /^--status: got "done", expected one of RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED\n/,
    );
  });

  it('stop: posts to /runs/{id}/stop and prints when the run stopped', async () => {
    // Prepare
    api.answer(() => ({
      status: 200,
      body: {
        runId: 'nightly',
        workflow: 'optimization',
        executionArn: EXECUTION_ARN,
        stopDate: '2026-11-24T10:00:00.000Z',
      },
    }));

    // Act
    const { exitCode, stdout } = await run('stop', 'nightly', '--api', api.url);

    // Assert
    expect(exitCode).toBe(0);
    expect(api.requests.map(({ method, path, signatureValid }) => [method, path, signatureValid])).toEqual([
      ['POST', '/v1/runs/nightly/stop', true],
    ]);
    expect(stdout).toEqual(['Stopped run nightly at 2026-11-24T10:00:00.000Z']);
  });

  it('stop: exits 1 with the API’s words when the run has already ended', async () => {
    // Prepare
    api.answer(() => ({
      status: 409,
      body: { error: 'RunNotRunning', message: 'Run "nightly" is not running: it is SUCCEEDED' },
    }));

    // Act
    const { exitCode, stderr } = await run('stop', 'nightly', '--api', api.url);

    // Assert
    expect(exitCode).toBe(1);
    expect(stderr).toEqual([
      'RunApiError: POST /v1/runs/nightly/stop answered 409 RunNotRunning: Run "nightly" is not running: it is SUCCEEDED',
    ]);
  });

  it('logs: prints the run’s events one line each, oldest first', async () => {
    // Prepare
    api.answer(() => ({
      status: 200,
      body: {
        runId: 'nightly',
        workflow: 'optimization',
        truncated: false,
        events: [
          { id: 1, timestamp: '2026-11-24T10:00:00.000Z', type: 'ExecutionStarted' },
          {
            id: 2,
            timestamp: '2026-11-24T10:00:01.000Z',
            type: 'TaskStateEntered',
            state: 'Validate and plan',
          },
          {
            id: 9,
            timestamp: '2026-11-24T10:00:09.000Z',
            type: 'ExecutionFailed',
            error: 'QuotaExceededError',
            cause: 'ml.g5.xlarge quota is 0',
          },
        ],
      },
    }));

    // Act
    const { exitCode, stdout } = await run('logs', 'nightly', '--api', api.url, '--limit', '50');

    // Assert
    expect(exitCode).toBe(0);
    expect(api.requests.map(({ path, search }) => `${path}${search}`)).toEqual([
      '/v1/runs/nightly/events?limit=50',
    ]);
    expect(stdout).toEqual([
      '2026-11-24T10:00:00.000Z #1 ExecutionStarted',
      '2026-11-24T10:00:01.000Z #2 TaskStateEntered Validate and plan',
      '2026-11-24T10:00:09.000Z #9 ExecutionFailed QuotaExceededError: ml.g5.xlarge quota is 0',
    ]);
  });

  it('report: downloads each file through its presigned link, unsigned, into the folder', async () => {
    // Prepare
    const fileUrl = (name: string) => `${api.url.replace('/v1/', '')}/presigned/${name}?X-Amz-Signature=abc`;
    api.answer((request) => {
      if (request.path.startsWith('/presigned/')) return { status: 200, body: `content of ${request.path}` };
      return {
        status: 200,
        body: {
          runId: 'nightly',
          workflow: 'optimization',
          expiresAt: '2026-11-24T10:15:00.000Z',
          files: ['report.json', 'report.html'].map((name) => ({
            name,
            uri: `s3://mso-artifacts/runs/nightly/${name}`,
            url: fileUrl(name),
          })),
        },
      };
    });

    // Act
    const { exitCode, stdout } = await run('report', 'nightly', '--api', api.url, '--out', 'out/nightly');

    // Assert
    expect(exitCode).toBe(0);
    expect(api.requests.map(({ path, headers }) => [path, headers.authorization !== undefined])).toEqual([
      ['/v1/runs/nightly/report', true],
      ['/presigned/report.json', false],
      ['/presigned/report.html', false],
    ]);
    expect(Object.fromEntries(written)).toEqual({
      'out/nightly/report.json': 'content of /presigned/report.json',
      'out/nightly/report.html': 'content of /presigned/report.html',
    });
    expect(stdout).toEqual(['out/nightly/report.json\nout/nightly/report.html']);
  });

  it('report --links: prints the links and downloads nothing', async () => {
    // Prepare
    api.answer(() => ({
      status: 200,
      body: {
        runId: 'nightly',
        workflow: 'optimization',
        expiresAt: '2026-11-24T10:15:00.000Z',
        files: [{ name: 'report.md', uri: 's3://b/runs/nightly/report.md', url: 'https://b.s3/x?sig' }],
      },
    }));

    // Act
    const { exitCode, stdout } = await run('report', 'nightly', '--links', '--api', api.url);

    // Assert
    expect(exitCode).toBe(0);
    expect(stdout).toEqual(['Links valid until 2026-11-24T10:15:00.000Z:\nreport.md  https://b.s3/x?sig']);
    expect(written.size).toBe(0);
  });

  it('report: fails naming the file when a download is refused', async () => {
    // Prepare
    api.answer((request) =>
      request.path.startsWith('/presigned/')
        ? { status: 403, body: 'AccessDenied' }
        : {
            status: 200,
            body: {
              runId: 'nightly',
              workflow: 'optimization',
              expiresAt: '2026-11-24T10:15:00.000Z',
              files: [
                {
                  name: 'report.json',
                  uri: 's3://b/runs/nightly/report.json',
                  url: `${api.url.replace('/v1/', '')}/presigned/report.json`,
                },
              ],
            },
          },
    );

    // Act
    const { exitCode, stderr } = await run('report', 'nightly', '--api', api.url);

    // Assert
    expect(exitCode).toBe(1);
    expect(stderr[0]).toMatch(
      /^Error: Downloading report\.json \(s3:\/\/b\/runs\/nightly\/report\.json\) answered 403 Forbidden, expected 200: AccessDenied/,
    );
  });
});

describe('npm run runs: report files are written inside --out only', () => {
  it('fails when the API names a report file with a path (../../x), writing nothing', async () => {
    // Prepare
    api.answer((request) =>
      request.path.startsWith('/presigned/')
        ? { status: 200, body: 'overwritten' }
        : {
            status: 200,
            body: {
              runId: 'nightly',
              workflow: 'optimization',
              expiresAt: '2026-11-24T10:15:00.000Z',
              files: [
                {
                  name: '../../x',
                  uri: 's3://b/runs/nightly/x',
                  url: `${api.url.replace('/v1/', '')}/presigned/x`,
                },
              ],
            },
          },
    );

    // Act
    const { exitCode, stderr } = await run('report', 'nightly', '--api', api.url, '--out', 'out/nightly');

    // Assert
    expect(exitCode).toBe(1);
    expect(stderr[0]).toMatch(
      /^RunApiError: GET \/v1\/runs\/nightly\/report answered 200 with a body the run API contract does not allow: files\.0\.name: a plain file name/,
    );
    expect(api.requests.map(({ path }) => path)).toEqual(['/v1/runs/nightly/report']);
    expect(written.size).toBe(0);
  });

  it.each(['../../x', '..', '.bashrc', 'a/b', 'a\\b', ''])(
    'fails when the file writer is given the name %j, creating nothing',
    async (name) => {
      // Prepare
      const folder = await mkdtemp(join(tmpdir(), 'runs-report-'));
      const out = join(folder, 'out', 'nightly');

      // Act
      const act = processIo.writeFile(out, name, new TextEncoder().encode('x'));

      // Assert
      await expect(act).rejects.toThrow(
        `Report file name ${JSON.stringify(name)}: expected a plain file name`,
      );
      expect(await readdir(folder)).toEqual([]);
      await rm(folder, { recursive: true, force: true });
    },
  );
});

describe('npm run runs: usage errors exit 2 naming the option, before any request', () => {
  const EXECUTE_API = 'https://abc123.execute-api.us-east-1.amazonaws.com/v1/';

  /** The program with its own environment and no test region: what a user's shell gives it. */
  function runRefused(env: CliIo['env'], ...argv: string[]) {
    return runWith(
      { env, createClient: (options) => new RunApiClient({ ...options, credentials: TEST_CREDENTIALS }) },
      ...argv,
    );
  }

  it.each([
    {
      when: '--api is not a URL',
      env: {},
      argv: ['status', 'nightly', '--api', 'not a url'],
      message:
        '--api: got "not a url", expected an absolute URL such as the RunApiUrl output (https://<id>.execute-api.<region>.amazonaws.com/<stage>/)',
    },
    {
      when: 'RUN_API_URL is not a URL',
      env: { RUN_API_URL: 'abc123/v1' },
      argv: ['status', 'nightly'],
      message:
        'RUN_API_URL: got "abc123/v1", expected an absolute URL such as the RunApiUrl output (https://<id>.execute-api.<region>.amazonaws.com/<stage>/)',
    },
    {
      when: '--api is plain HTTP to another machine',
      env: {},
      argv: ['status', 'nightly', '--api', 'http://abc123.execute-api.us-east-1.amazonaws.com/v1/'],
      message:
        '--api: got "http://abc123.execute-api.us-east-1.amazonaws.com/v1/", expected an https:// URL (https://<id>.execute-api.<region>.amazonaws.com/<stage>/); ' +
        'http:// is accepted only for this machine (localhost, 127.0.0.1, [::1]): the requests carry signatures and session tokens',
    },
    {
      when: '--region is not an AWS region name',
      env: {},
      argv: ['status', 'nightly', '--api', EXECUTE_API, '--region', 'us east 1'],
      message: '--region: got "us east 1", expected an AWS region name such as us-east-1 or eu-west-3',
    },
    {
      when: 'AWS_REGION is not an AWS region name and the URL names none',
      env: { AWS_REGION: 'us east 1' },
      argv: ['status', 'nightly', '--api', 'https://runs.example.com/v1/'],
      message: 'AWS_REGION: got "us east 1", expected an AWS region name such as us-east-1 or eu-west-3',
    },
    {
      when: 'the --input file does not exist',
      env: {},
      argv: ['start', '--api', EXECUTE_API, '--input', '/nonexistent/input.json'],
      message:
        "--input /nonexistent/input.json: cannot read it (Error: ENOENT: no such file or directory, open '/nonexistent/input.json'), expected a run input JSON file",
    },
    {
      when: 'the --input file of a plan does not exist',
      env: {},
      argv: ['plan', '--api', EXECUTE_API, '--input', '/nonexistent/input.json'],
      message:
        "--input /nonexistent/input.json: cannot read it (Error: ENOENT: no such file or directory, open '/nonexistent/input.json'), expected a run input JSON file",
    },
    {
      when: '--run-id is not an execution name',
      env: {},
      argv: ['start', '--api', EXECUTE_API, '--input', EXAMPLE, '--run-id', 'has space'],
      message:
        '--run-id: got "has space", expected 1 to 80 letters, digits, "-" or "_" (it becomes the execution name)',
    },
    {
      when: 'a run id argument is not an execution name',
      env: {},
      argv: ['status', '../x', '--api', EXECUTE_API],
      message:
        'run id: got "../x", expected 1 to 80 letters, digits, "-" or "_" (it becomes the execution name)',
    },
    {
      when: '--poll-seconds is given without --wait',
      env: {},
      argv: ['start', '--api', EXECUTE_API, '--input', EXAMPLE, '--poll-seconds', '5'],
      message: 'got --poll-seconds without --wait, expected it only with --wait',
    },
    {
      when: '--timeout-seconds is not a number',
      env: {},
      argv: ['start', '--api', EXECUTE_API, '--input', EXAMPLE, '--wait', '--timeout-seconds', 'soon'],
      message: '--timeout-seconds: got "soon", expected a number of seconds above 0',
    },
    {
      when: '--out is empty',
      env: {},
      argv: ['report', 'nightly', '--api', EXECUTE_API, '--out', ''],
      message: 'got --out "", expected a folder',
    },
    {
      when: '--out is given with --links',
      env: {},
      argv: ['report', 'nightly', '--api', EXECUTE_API, '--links', '--out', 'x'],
      message: 'got --out with --links, expected one of them: --links downloads nothing',
    },
  ])('fails when $when', async ({ env, argv, message }) => {
    // Act
    const { exitCode, stderr } = await runRefused(env, ...argv);

    // Assert
    expect([exitCode, stderr[0]?.split('\n')[0]]).toEqual([2, message]);
  });

  it('fails when a --wait setting is wrong, before the run is started', async () => {
    // Prepare
    api.answer(() => ({ status: 200, body: STARTED }));

    // Act
    const { exitCode, stderr } = await run(
      'start',
      '--api',
      api.url,
      '--input',
      EXAMPLE,
      '--wait',
      '--poll-seconds',
      'x',
    );

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]).toMatch(/^--poll-seconds: got "x", expected a number of seconds above 0\n/);
    expect(api.requests).toEqual([]);
  });
});

describe('npm run runs: the command line', () => {
  it('refuses an unknown option with exit 2, naming it and the command’s options', async () => {
    // Prepare
    api.answer(() => ({ status: 500, body: { message: 'no request expected' } }));

    // Act
    const { exitCode, stderr } = await run('status', 'nightly', '--api', api.url, '--follow');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]).toMatch(
      /^got the option --follow for "status", expected one of --api, --region, --json, --help, --version, --workflow, --async \(see npm run -s runs -- status --help\)\n\nA run's status/,
    );
    expect(api.requests).toEqual([]);
  });

  it('refuses an option of another command', async () => {
    // Act
    const { exitCode, stderr } = await run('list', '--api', api.url, '--input', 'x.json');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]).toMatch(/^got the option --input for "list", expected one of /);
  });

  it('refuses a string option given without its value', async () => {
    // Act
    const { exitCode, stderr } = await run('logs', 'nightly', '--api', api.url, '--limit');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]).toMatch(/^got --limit without a value, expected --limit <value>\n/);
  });

  it('<command> --help prints that command’s usage and exits 0', async () => {
    // Act
    const { exitCode, stdout } = await run('logs', '--help');

    // Assert
    expect(exitCode).toBe(0);
    expect(stdout).toEqual([commandUsage('logs')]);
    expect(stdout[0]).toMatch(/^A run's progress events .*\n\nUsage: npm run -s runs -- logs <run id>/);
  });

  it('--version prints the package version alone', async () => {
    // Prepare
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };

    // Act
    const { exitCode, stdout } = await run('--version');

    // Assert
    expect([exitCode, stdout]).toEqual([0, [manifest.version]]);
  });

  it('exits 2, as the local CLI does, when the input breaks the run-input schema', async () => {
    // Prepare
    api.answer(() => ({ status: 200, body: STARTED }));

    // Act
    const { exitCode, stderr } = await runWith(
      { readFile: () => Promise.resolve('{"sla": {"p95Ms": -1}}') },
      'start',
      '--api',
      api.url,
      '--input',
      'bad.json',
    );

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]).toMatch(/^InvalidRunInputError: /);
    expect(api.requests).toEqual([]);
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

  it('shows a Model Registry run’s comparison with the last approved version after its outcome', () => {
    // Act
    const line = progressLine({
      ...runStatus('SUCCEEDED', 4),
      outcome: 'recommended',
      comparison: 'regressed',
    });

    // Assert
    expect(line).toBe(
      'nightly SUCCEEDED · Run succeeded · candidates 4/4 done, 0 running · outcome: recommended · comparison: regressed · report: s3://mso-artifacts/runs/nightly/report.html',
    );
  });
});
