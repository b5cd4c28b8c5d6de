import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli } from '../../client/cli-program.js';
import { RunApiClient } from '../../client/run-api-client.js';
import type { AsyncRunPlan } from '../../core/contracts/async-state.js';
import { formatAsyncPlan } from '../../core/report/async-plan-summary.js';
import { formatPlan } from '../../core/report/plan-summary.js';
import { plannedCandidate, runPlan } from '../../bench/fixtures/sample-report.js';
import { FakeRunApi, TEST_CREDENTIALS, TEST_REGION } from './support/fake-run-api.js';

/**
 * `npm run -s runs -- plan` against the fake run API: the request it signs and sends, and the same
 * text the local `--plan` prints for the plan the API answers.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'cpu-sweep.json');
const PLAN = runPlan([plannedCandidate('c5-large', 'ml.c5.large', 0.119)]);
const ASYNC_EXAMPLE = join(ROOT, 'examples', 'async-existing-endpoint.json');
const ASYNC_PLAN: AsyncRunPlan = {
  runId: 'batch',
  runPrefixUri: 's3://mso-artifacts/runs/batch/',
  manifestUri: 's3://mso-artifacts/runs/batch/async/inputs.json',
  itemCount: 1,
  batches: [{ batchIndex: 0, firstItemIndex: 0, itemCount: 1 }],
  batchConcurrency: 1,
  itemConcurrency: 1,
  invocation: {
    endpointName: 'team-async',
    contentType: 'application/json',
    invocationTimeoutSeconds: 900,
    requestTtlSeconds: 21600,
    waitTimeoutSeconds: 26100,
  },
  endpoint: { action: 'reuse', endpointName: 'team-async', variantName: 'AllTraffic', keepAfterRun: true },
  tags: { 'mso:run-id': 'batch' },
  plannedAtEpochMs: 1795514400000,
};
const ASYNC_ITEMS = [{ itemIndex: 0, inputLocation: 's3://mso-artifacts/inputs/in-1.json' }];

let api: FakeRunApi;

beforeAll(async () => {
  api = await FakeRunApi.start();
});

afterAll(async () => {
  await api.close();
});

async function run(...argv: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exitCode = await runCli(argv, {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: {},
    createClient: (options) =>
      new RunApiClient({ ...options, region: TEST_REGION, credentials: TEST_CREDENTIALS }),
    readFile: (path) => readFile(path, 'utf8'),
    writeFile: () => Promise.reject(new Error('plan writes no file')),
    fetch: (input, init) => globalThis.fetch(input, init),
  });
  return { exitCode, stdout, stderr };
}

describe('npm run runs -- plan', () => {
  it('posts the input file to /runs/plan, signed, and prints the local --plan text for the answer', async () => {
    // Prepare
    api.answer(() => ({ status: 200, body: { runId: PLAN.runId, workflow: 'optimization', plan: PLAN } }));

    // Act
    const { exitCode, stdout } = await run(
      'plan',
      '--api',
      api.url,
      '--input',
      EXAMPLE,
      '--run-id',
      PLAN.runId,
    );

    // Assert
    expect(exitCode).toBe(0);
    expect(stdout).toEqual([
      formatPlan({
        plan: PLAN,
        runCommand: `npm run -s runs -- start --input ${EXAMPLE} --run-id ${PLAN.runId}`,
      }).trimEnd(),
    ]);
    expect(
      api.requests.map(({ method, path, signatureValid }) => ({ method, path, signatureValid })),
    ).toEqual([{ method: 'POST', path: '/v1/runs/plan', signatureValid: true }]);
    expect(JSON.parse(api.requests[0]?.body ?? '')).toEqual({
      runId: PLAN.runId,
      input: JSON.parse(await readFile(EXAMPLE, 'utf8')),
    });
  });

  it("prints the estimate without the local CLI's 'a local run costs nothing'", async () => {
    // Prepare
    api.answer(() => ({ status: 200, body: { runId: PLAN.runId, workflow: 'optimization', plan: PLAN } }));

    // Act
    const { stdout } = await run('plan', '--api', api.url, '--input', EXAMPLE, '--run-id', PLAN.runId);

    // Assert
    expect(
      stdout.flatMap((text) => text.split('\n')).filter((line) => line.startsWith('Estimated cost')),
    ).toEqual(['Estimated cost on AWS: $0.40 (no maxCostUsd set)']);
  });

  it('--json prints the API’s answer alone', async () => {
    // Prepare
    const answer = { runId: PLAN.runId, workflow: 'optimization', plan: PLAN };
    api.answer(() => ({ status: 200, body: answer }));

    // Act
    const { exitCode, stdout } = await run('plan', '--api', api.url, '--input', EXAMPLE, '--json');

    // Assert
    expect([exitCode, JSON.parse(stdout.join('\n'))]).toEqual([0, JSON.parse(JSON.stringify(answer))]);
  });

  it('exits 2 with the first state’s issues when the API refuses the input', async () => {
    // Prepare
    const issues = [
      {
        field: 'payload.uri',
        given: '"s3://user-models/cnn/payload.bin"',
        expected: 'an object that exists',
      },
    ];
    api.answer(() => ({
      status: 400,
      body: { error: 'InvalidRunInput', message: 'Invalid run input: …', issues },
    }));

    // Act
    const { exitCode, stdout, stderr } = await run('plan', '--api', api.url, '--input', EXAMPLE);

    // Assert
    expect({ exitCode, stdout, stderr }).toEqual({
      exitCode: 2,
      stdout: [],
      stderr: [
        'InvalidRunInputError: Invalid run input: payload.uri: got "s3://user-models/cnn/payload.bin", expected an object that exists',
      ],
    });
  });

  it('exits 2 with the estimate when the run is over its maxCostUsd', async () => {
    // Prepare
    const message = 'The run’s estimated cost $3.10 exceeds maxCostUsd $1.00 (…). Nothing was created.';
    api.answer(() => ({ status: 400, body: { error: 'BudgetExceeded', message } }));

    // Act
    const { exitCode, stderr } = await run('plan', '--api', api.url, '--input', EXAMPLE);

    // Assert
    expect({ exitCode, stderr }).toEqual({ exitCode: 2, stderr: [`BudgetExceededError: ${message}`] });
  });

  it('refuses a plan without --input, with the command’s usage', async () => {
    // Act
    const { exitCode, stderr } = await run('plan', '--api', api.url);

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]?.split('\n')[0]).toBe('got no --input, expected a run input JSON file');
  });

  it('--async posts to /async-runs/plan and prints the local async --plan text', async () => {
    // Prepare
    api.answer(() => ({
      status: 200,
      body: { runId: 'batch', workflow: 'async-inference', plan: ASYNC_PLAN, items: ASYNC_ITEMS },
    }));

    // Act
    const { exitCode, stdout } = await run('plan', '--async', '--api', api.url, '--input', ASYNC_EXAMPLE);

    // Assert
    expect(exitCode).toBe(0);
    expect(stdout).toEqual([
      formatAsyncPlan({
        planned: { plan: ASYNC_PLAN, items: ASYNC_ITEMS },
        runCommand: `npm run -s runs -- start --input ${ASYNC_EXAMPLE} --workflow async`,
        displayUri: (uri) => uri,
      }).trimEnd(),
    ]);
    expect(api.requests.map(({ method, path }) => `${method} ${path}`)).toEqual(['POST /v1/async-runs/plan']);
  });
});
