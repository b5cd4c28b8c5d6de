import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type CliIo, runCli } from '../../client/cli-program.js';
import { RunApiClient } from '../../client/run-api-client.js';
import type { RunsIndexDocument } from '../../core/report/runs-index.js';
import { sampleReport } from '../../bench/fixtures/sample-report.js';
import {
  FakeRunApi,
  type ReceivedRequest,
  type ScriptedAnswer,
  TEST_CREDENTIALS,
  TEST_REGION,
} from './support/fake-run-api.js';

const ARN = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:';

let api: FakeRunApi;

beforeAll(async () => {
  api = await FakeRunApi.start();
});

afterAll(async () => {
  await api.close();
});

/** The program against the fake API; files it writes are kept by path (folder/name). */
async function run(...argv: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const written = new Map<string, string>();
  const io: CliIo = {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: {},
    createClient: (options) =>
      new RunApiClient({ ...options, region: options.region ?? TEST_REGION, credentials: TEST_CREDENTIALS }),
    readFile: () => Promise.reject(new Error('index reads no file')),
    writeFile: (folder, name, data) => {
      written.set(`${folder}/${name}`, Buffer.from(data).toString('utf8'));
      return Promise.resolve(`${folder}/${name}`);
    },
    fetch: (input, init) => globalThis.fetch(input, init),
  };
  const exitCode = await runCli(argv, io);
  return { exitCode, stdout, stderr, written };
}

function listed(runId: string, status: string, workflow = 'optimization') {
  return { runId, workflow, status, executionArn: `${ARN}${runId}`, startDate: '2026-11-22T08:00:00.000Z' };
}

/**
 * Optimization runs: `nightly` succeeded with a report, `broken` failed before its report, `now`
 * is running; async runs: `batch` completed. Presigned links are served under /presigned/.
 */
function answerStack(
  overrides: (request: ReceivedRequest) => ScriptedAnswer | undefined = () => undefined,
): void {
  const origin = api.url.replace('/v1/', '');
  const report = sampleReport();
  const summary = {
    runId: 'batch',
    outcome: 'completed',
    endpointName: 'mso-batch',
    inputs: 3,
    completed: 3,
    failed: 0,
    timedOut: 0,
    makespanMs: 1,
    drainRatePerMinute: 1,
    totalMs: null,
    timeInSageMakerMs: null,
    summaryUri: 's3://b/runs/batch/async/summary.json',
    summaryMarkdownUri: 's3://b/runs/batch/async/summary.md',
  };
  const links = (runId: string, workflow: string, names: readonly string[]) => ({
    status: 200,
    body: {
      runId,
      workflow,
      expiresAt: '2026-11-22T12:15:00.000Z',
      files: names.map((name) => ({
        name,
        uri: `s3://b/runs/${runId}/${name}`,
        url: `${origin}/presigned/${runId}/${name}?X-Amz-Signature=abc`,
      })),
    },
  });
  api.answer((request) => {
    const scripted = overrides(request);
    if (scripted !== undefined) return scripted;
    switch (request.path) {
      case '/v1/runs':
        return {
          status: 200,
          body: {
            runs: [listed('now', 'RUNNING'), listed('nightly', 'SUCCEEDED'), listed('broken', 'FAILED')],
            truncated: false,
          },
        };
      case '/v1/async-runs':
        return {
          status: 200,
          body: { runs: [listed('batch', 'SUCCEEDED', 'async-inference')], truncated: false },
        };
      case '/v1/runs/nightly/report':
        return links('nightly', 'optimization', ['report.json', 'report.md', 'report.html']);
      case '/v1/runs/broken/report':
        return {
          status: 409,
          body: { error: 'ReportNotAvailable', message: 'Run "broken" has no report: it is FAILED' },
        };
      case '/v1/async-runs/batch/report':
        return links('batch', 'async-inference', ['summary.json', 'summary.md']);
      case '/presigned/nightly/report.json':
        return { status: 200, body: report };
      case '/presigned/batch/summary.json':
        return { status: 200, body: summary };
      default:
        return request.path.startsWith('/presigned/')
          ? { status: 200, body: `content of ${request.path}` }
          : { status: 404, body: { error: 'RunNotFound', message: request.path } };
    }
  });
}

describe('npm run runs -- index', () => {
  it('lists both workflows, asks for the ended runs’ report links, signed, and downloads them unsigned', async () => {
    // Prepare
    answerStack();

    // Act
    const { exitCode } = await run('index', '--api', api.url, '--out', 'out', '--limit', '20');

    // Assert
    expect(exitCode).toBe(0);
    expect(
      api.requests.map(({ method, path, search, headers, signatureValid }) => [
        method,
        `${path}${search}`,
        headers.authorization === undefined ? 'unsigned' : signatureValid ? 'signed' : 'bad signature',
      ]),
    ).toEqual([
      ['GET', '/v1/runs?limit=20', 'signed'],
      ['GET', '/v1/runs/nightly/report', 'signed'],
      ['GET', '/presigned/nightly/report.json?X-Amz-Signature=abc', 'unsigned'],
      ['GET', '/presigned/nightly/report.md?X-Amz-Signature=abc', 'unsigned'],
      ['GET', '/presigned/nightly/report.html?X-Amz-Signature=abc', 'unsigned'],
      ['GET', '/v1/runs/broken/report', 'signed'],
      ['GET', '/v1/async-runs?limit=20', 'signed'],
      ['GET', '/v1/async-runs/batch/report', 'signed'],
      ['GET', '/presigned/batch/summary.json?X-Amz-Signature=abc', 'unsigned'],
      ['GET', '/presigned/batch/summary.md?X-Amz-Signature=abc', 'unsigned'],
    ]);
  });

  it('writes index.html and index.json beside each run’s files, one row per listed run', async () => {
    // Prepare
    answerStack();

    // Act
    const { stdout, written } = await run('index', '--api', api.url, '--out', 'out');

    // Assert
    expect([...written.keys()].sort()).toEqual([
      'out/batch/summary.json',
      'out/batch/summary.md',
      'out/index.html',
      'out/index.json',
      'out/nightly/report.html',
      'out/nightly/report.json',
      'out/nightly/report.md',
    ]);
    const document = JSON.parse(written.get('out/index.json') ?? '') as RunsIndexDocument;
    expect(
      document.runs.map(({ runId, workflow, outcome, winner, links }) => ({
        runId,
        workflow,
        outcome,
        winner: winner?.candidateId,
        links,
      })),
    ).toEqual([
      {
        runId: 'nightly',
        workflow: 'optimization',
        outcome: 'partial',
        winner: 'c2-c5-xlarge-neo',
        links: { html: 'nightly/report.html', markdown: 'nightly/report.md', json: 'nightly/report.json' },
      },
      { runId: 'now', workflow: 'optimization', outcome: 'running', winner: undefined, links: {} },
      { runId: 'broken', workflow: 'optimization', outcome: 'failed', winner: undefined, links: {} },
      {
        runId: 'batch',
        workflow: 'async-inference',
        outcome: 'async-completed',
        winner: undefined,
        links: { markdown: 'batch/summary.md', json: 'batch/summary.json' },
      },
    ]);
    expect(document.source).toBe(api.url);
    expect(written.get('out/index.html')).toContain('<a href="nightly/report.html">report</a>');
    expect(stdout).toEqual(['out/index.html (4 run(s))']);
  });

  it('--workflow async lists only the async runs', async () => {
    // Prepare
    answerStack();

    // Act
    const { exitCode } = await run('index', '--api', api.url, '--workflow', 'async', '--since', '2026-11-01');

    // Assert
    expect(exitCode).toBe(0);
    expect(
      api.requests
        .filter(({ path }) => path.startsWith('/v1/'))
        .map(({ path, search }) => `${path}${search}`),
    ).toEqual(['/v1/async-runs?since=2026-11-01T00%3A00%3A00.000Z', '/v1/async-runs/batch/report']);
  });

  it('fails when a report link is refused for a reason other than "no report", writing no index', async () => {
    // Prepare
    answerStack((request) =>
      request.path === '/v1/runs/nightly/report'
        ? { status: 403, body: { message: 'User is not authorized to access this resource' } }
        : undefined,
    );

    // Act
    const { exitCode, stderr, written } = await run('index', '--api', api.url, '--out', 'out');

    // Assert
    expect(exitCode).toBe(1);
    expect(stderr.join('\n')).toContain('GET /v1/runs/nightly/report answered 403');
    expect(written.has('out/index.html')).toBe(false);
  });

  it('fails when the API lists a run id that cannot name a folder, downloading nothing for it', async () => {
    // Prepare
    answerStack((request) =>
      request.path === '/v1/runs'
        ? { status: 200, body: { runs: [listed('../../etc', 'SUCCEEDED')], truncated: false } }
        : undefined,
    );

    // Act
    const { exitCode, stderr, written } = await run('index', '--api', api.url, '--workflow', 'optimization');

    // Assert
    expect(exitCode).toBe(1);
    expect(stderr.join('\n')).toContain('The run API listed a run id that cannot name a folder');
    expect(api.requests.map(({ path }) => path)).toEqual(['/v1/runs']);
    expect(written.size).toBe(0);
  });

  it('fails with the usage when --since is not a date, before any request', async () => {
    // Prepare
    answerStack();

    // Act
    const { exitCode, stderr } = await run('index', '--api', api.url, '--since', 'yesterday');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]?.split('\n')[0]).toBe(
      '--since: got "yesterday", expected an ISO 8601 date such as 2026-11-24',
    );
    expect(api.requests).toEqual([]);
  });
});
