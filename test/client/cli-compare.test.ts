import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type CliIo, runCli } from '../../client/cli-program.js';
import { RunApiClient } from '../../client/run-api-client.js';
import type { Report } from '../../core/report/report.js';
import { type ComparedFigures, comparedReport } from '../core/report/support/comparison-reports.js';
import {
  FakeRunApi,
  type ReceivedRequest,
  type ScriptedAnswer,
  TEST_CREDENTIALS,
  TEST_REGION,
} from './support/fake-run-api.js';

const NEO: ComparedFigures = {
  id: 'c5-large-neo',
  tps: 500,
  p95: 10,
  cost: 0.05,
  spread: { tps: [480, 500, 520], p95: [9, 10, 11], cost: [0.048, 0.052] },
};
const SLOWER_NEO: ComparedFigures = {
  ...NEO,
  tps: 400,
  cost: 0.0625,
  spread: { tps: [390, 400, 410], p95: [9, 10, 11], cost: [0.061, 0.064] },
};

let api: FakeRunApi;

beforeAll(async () => {
  api = await FakeRunApi.start();
});

afterAll(async () => {
  await api.close();
});

/** The program against the fake API, its output captured; nothing is written to disk. */
async function run(...argv: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io: CliIo = {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: {},
    createClient: (options) =>
      new RunApiClient({ ...options, region: options.region ?? TEST_REGION, credentials: TEST_CREDENTIALS }),
    readFile: () => Promise.reject(new Error('compare reads no file')),
    writeFile: () => Promise.reject(new Error('compare writes no file')),
    fetch: (input, init) => globalThis.fetch(input, init),
  };
  const exitCode = await runCli(argv, io);
  return { exitCode, stdout, stderr };
}

/**
 * The run API's report route for each run of `reports`, with presigned links served by the same
 * fake server under /presigned/<run id>/<file>.
 */
function answerReports(reports: Readonly<Record<string, Report | string>>): void {
  const origin = api.url.replace('/v1/', '');
  api.answer((request: ReceivedRequest): ScriptedAnswer => {
    const presigned = /^\/presigned\/([^/]+)\/report\.json$/.exec(request.path);
    if (presigned !== null) {
      const report = reports[presigned[1] ?? ''];
      return report === undefined ? { status: 404, body: 'NoSuchKey' } : { status: 200, body: report };
    }
    const runId = /^\/v1\/runs\/([^/]+)\/report$/.exec(request.path)?.[1] ?? '';
    return {
      status: 200,
      body: {
        runId,
        workflow: 'optimization',
        expiresAt: '2026-11-24T10:15:00.000Z',
        files: ['report.json', 'report.html'].map((name) => ({
          name,
          uri: `s3://mso-artifacts/runs/${runId}/${name}`,
          url: `${origin}/presigned/${runId}/${name}?X-Amz-Signature=abc`,
        })),
      },
    };
  });
}

describe('npm run runs: compare', () => {
  it('downloads both report.json through their signed report links and exits 6 on a regression', async () => {
    // Prepare
    answerReports({
      'nightly-1': comparedReport('nightly-1', [NEO], 'c5-large-neo'),
      'nightly-2': comparedReport('nightly-2', [SLOWER_NEO], 'c5-large-neo'),
    });

    // Act
    const { exitCode, stdout } = await run('compare', 'nightly-1', 'nightly-2', '--api', api.url);

    // Assert
    expect(exitCode).toBe(6);
    expect(
      api.requests.map(({ path, signatureValid, headers }) => [
        path,
        signatureValid,
        headers.authorization !== undefined,
      ]),
    ).toEqual([
      ['/v1/runs/nightly-1/report', true, true],
      ['/presigned/nightly-1/report.json', false, false],
      ['/v1/runs/nightly-2/report', true, true],
      ['/presigned/nightly-2/report.json', false, false],
    ]);
    expect(stdout[0]?.split('\n').slice(0, 2)).toEqual([
      'Comparing nightly-1 (2026-11-24T12:00:00.000Z) → nightly-2 (2026-11-24T12:00:00.000Z)',
      'Verdict: regressed: c5-large-neo (recommended by nightly-1): worse: TPS 500.0 → 400.0 (-20 %), ranges do not overlap; $/1M $0.0500 → $0.0625 (+25 %), ranges do not overlap',
    ]);
  });

  it('prints the comparison as one JSON document with --json, exit 0 when unchanged', async () => {
    // Prepare
    answerReports({
      'nightly-1': comparedReport('nightly-1', [NEO], 'c5-large-neo'),
      'nightly-2': comparedReport('nightly-2', [NEO], 'c5-large-neo'),
    });

    // Act
    const { exitCode, stdout } = await run('compare', 'nightly-1', 'nightly-2', '--api', api.url, '--json');

    // Assert
    expect(exitCode).toBe(0);
    expect(stdout).toHaveLength(1);
    const comparison = JSON.parse(stdout[0] ?? '') as Record<string, unknown>;
    expect([comparison.verdict, comparison.verdictReason, comparison.recommendation]).toEqual([
      'unchanged',
      'c5-large-neo (recommended by nightly-1): within noise on TPS, p95 ms, $/1M',
      { base: 'c5-large-neo', new: 'c5-large-neo', changed: false },
    ]);
  });

  it('prints a Markdown table with --markdown', async () => {
    // Prepare
    answerReports({
      'nightly-1': comparedReport('nightly-1', [NEO], 'c5-large-neo'),
      'nightly-2': comparedReport('nightly-2', [SLOWER_NEO], 'c5-large-neo'),
    });

    // Act
    const { stdout } = await run('compare', 'nightly-1', 'nightly-2', '--api', api.url, '--markdown');

    // Assert
    expect(stdout[0]?.split('\n').filter((line) => line.startsWith('| c5-large-neo | TPS'))).toEqual([
      '| c5-large-neo | TPS | 500.0 (480.0–520.0) | 400.0 (390.0–410.0) | -100.0 (-20 %) | regressed |',
    ]);
  });

  it('fails naming the run and the field when a report.json is not one it can compare', async () => {
    // Prepare
    answerReports({
      'nightly-1': comparedReport('nightly-1', [NEO], 'c5-large-neo'),
      'nightly-2': JSON.stringify({
        ...comparedReport('nightly-2', [NEO], 'c5-large-neo'),
        schemaVersion: 2,
      }),
    });

    // Act
    const { exitCode, stderr } = await run('compare', 'nightly-1', 'nightly-2', '--api', api.url);

    // Assert
    expect(exitCode).toBe(1);
    expect(stderr[0]).toBe(
      'InvalidReportError: report.json of run nightly-2 (s3://mso-artifacts/runs/nightly-2/report.json) is not a ' +
        'report.json this version can compare: schemaVersion: got 2, expected 1. Expected the report.json a run ' +
        'wrote (runs/<run id>/report.json, or `runs report <run id>`)',
    );
  });

  it('refuses one run id with exit 2, asking for two', async () => {
    // Act
    const { exitCode, stderr } = await run('compare', 'nightly-1', '--api', api.url);

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]?.split('\n')[0]).toBe(
      'got the arguments nightly-1 after compare, expected exactly 2 run ids',
    );
  });

  it('refuses a negative --tolerance with exit 2', async () => {
    // Act
    const { exitCode, stderr } = await run('compare', 'a', 'b', '--api', api.url, '--tolerance', '-1');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]?.split('\n')[0]).toBe(
      '--tolerance: got "-1", expected a percentage of 0 or more, e.g. 5',
    );
  });
});
