/**
 * The async-inference workflow end to end, locally: the synthesized definition runs on the local
 * runner, its invoke task queues each input on a local async endpoint (a real model server with the
 * example model), and the endpoint's notifications resume the waiting tasks through the same
 * notification handler as on AWS. Covered: results, a model error, an invocation timeout, a
 * notification that never arrives (the wait's heartbeat expires), and the CLI's example run.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, jest } from '@jest/globals';
import { deriveInferenceId } from '../../../core/steps/async/invoke-async-inference.js';
import type { AsyncRunSummary } from '../../../core/contracts/async-state.js';
import { runAsyncCli } from '../../../local/cli/async/main.js';
import {
  type LocalAsyncEnvironment,
  runLocalAsyncInference,
} from '../../../local/environment/async-environment.js';
import { itemsOf, localAsyncSandbox, samples } from './support/async-run.js';
import { isAlive } from '../platform/support/model-artifacts.js';

const MODEL_URI = 's3://local-artifacts/models/e2e/model.tar.gz';
const INPUT = (name: string): string => `s3://local-artifacts/inputs/e2e/${name}.bin`;

const sandbox = localAsyncSandbox('local-async-run-', MODEL_URI);

async function prepare(name: string): Promise<LocalAsyncEnvironment> {
  const environment = await sandbox.prepare(name);
  // Pairs of samples fill a batch of 2 and run at once; one sample alone waits 5 s for a partner
  // (the server's dynamic batching delay): a deterministic slow inference.
  await environment.store.putBytes(INPUT('pair-1'), samples(2));
  await environment.store.putBytes(INPUT('pair-2'), samples(2));
  await environment.store.putBytes(INPUT('single'), samples(1));
  await environment.store.putBytes(INPUT('truncated'), new Uint8Array([1, 2, 3]));
  return environment;
}

function runInput(inputs: readonly string[], invocationTimeoutSeconds: number): Record<string, unknown> {
  return {
    name: 'e2e',
    endpoint: {
      modelDataUrl: MODEL_URI,
      framework: 'onnx',
      image: 'local',
      instanceType: 'ml.c5.large',
      maxInstanceCount: 1,
      environment: {
        MODEL_SERVER_MAX_BATCH_SIZE: '2',
        MODEL_SERVER_MAX_BATCH_DELAY_MS: '5000',
        MODEL_SERVER_INTRA_OP_THREADS: '1',
      },
    },
    inputs: inputs.map(INPUT),
    contentType: 'application/octet-stream',
    invocationTimeoutSeconds,
    requestTtlSeconds: 60,
  };
}

describe('the async-inference workflow run locally', () => {
  it('records results, a model error and an invocation timeout, then deletes the endpoint and stops its servers', async () => {
    // Prepare
    const env = await prepare('mixed');

    // Act
    const outcome = await runLocalAsyncInference({
      environment: env,
      stateMachine: sandbox.workflows.asyncInference,
      input: runInput(['pair-1', 'truncated', 'single', 'pair-2'], 1) as never,
      runId: 'e2e-mixed',
    });

    // Assert
    expect(outcome.result.status).toBe('SUCCEEDED');
    const summary = (outcome.result as { output: unknown }).output as AsyncRunSummary;
    expect(summary).toMatchObject({ inputs: 4, completed: 2, failed: 2, timedOut: 0 });
    const [pair1, truncated, single, pair2] = await itemsOf(env, summary);
    for (const item of [pair1, pair2]) {
      expect(item?.status).toBe('Completed');
      const result = JSON.parse(
        new TextDecoder().decode(await env.store.getBytes(item?.outputLocation ?? '')),
      ) as {
        predictions: number[][];
      };
      expect(result.predictions).toHaveLength(2);
    }
    expect(truncated).toMatchObject({
      status: 'Failed',
      failureReason: expect.stringMatching(
        /^Failed: ClientError: Received client error \(400\) from model with message/,
      ),
    });
    expect(existsSync(env.store.pathOf(truncated?.failureLocation ?? ''))).toBe(true);
    expect(single).toMatchObject({
      status: 'Failed',
      failureReason: expect.stringMatching(
        /^Failed: ModelError: .*timed out .*InvocationTimeoutSeconds \(1 s\)/,
      ),
    });
    expect(existsSync(env.store.pathOf(summary.summaryMarkdownUri))).toBe(true);
    // Every token was used; the endpoint is gone with its processes.
    const waiting = [];
    for await (const record of env.tokens.listWaiting()) waiting.push(record);
    expect(waiting).toEqual([]);
    expect(await env.host.describeEndpoint(summary.endpointName)).toBeUndefined();
    const pids = env.host.launchedServers().map((server) => server.pid ?? 0);
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  }, 60_000);

  it('fails in "Run refused" with every bad field named, before anything is created', async () => {
    // Prepare
    const env = await prepare('refused');
    const input = { ...runInput(['pair-1'], 1), requestTtlSeconds: 10, contentType: '' };

    // Act
    const outcome = await runLocalAsyncInference({
      environment: env,
      stateMachine: sandbox.workflows.asyncInference,
      input,
      runId: 'e2e-refused',
    });

    // Assert
    expect(outcome.result).toMatchObject({ status: 'FAILED', error: 'InvalidRunInputError' });
    // As on AWS, the cause is Lambda's error document.
    const cause = JSON.parse((outcome.result as { cause: string }).cause) as { errorMessage: string };
    expect(cause.errorMessage).toMatch(/requestTtlSeconds: got 10, expected/);
    expect(cause.errorMessage).toMatch(/contentType: got "", expected/);
    expect(env.host.launchedServers()).toEqual([]);
  }, 60_000);

  it('fails in "Run refused" when an input object is missing, before any endpoint is created', async () => {
    // Prepare
    const env = await prepare('missing-input');

    // Act
    const outcome = await runLocalAsyncInference({
      environment: env,
      stateMachine: sandbox.workflows.asyncInference,
      input: runInput(['pair-1', 'gone'], 60) as never,
      runId: 'e2e-missing-input',
    });

    // Assert
    expect(outcome.result).toMatchObject({ status: 'FAILED', error: 'InvalidRunInputError' });
    const cause = JSON.parse((outcome.result as { cause: string }).cause) as { errorMessage: string };
    expect(cause.errorMessage).toBe(
      `Invalid run input: inputs[1]: got "${INPUT('gone')}", expected an object that exists and that the workflow can read`,
    );
    expect(env.host.launchedServers()).toEqual([]);
    expect(await env.host.listRunResources('e2e-missing-input', 'mso-')).toEqual({
      endpoints: [],
      endpointConfigs: [],
      models: [],
      compilationJobs: [],
      optimizationJobs: [],
    });
  }, 60_000);

  it('records an input whose notification never arrives as TimedOut when its wait’s heartbeat expires', async () => {
    // Prepare: the notification handler cannot read the token store for one input, every attempt;
    // no heartbeat sender runs, so that wait ends at its HeartbeatSeconds (900 s × 5/900 = 5 s).
    const env = await prepare('lost');
    const lostId = deriveInferenceId('e2e-lost', 1);
    const get = env.tokens.get.bind(env.tokens);
    jest
      .spyOn(env.tokens, 'get')
      .mockImplementation((inferenceId) =>
        inferenceId === lostId ? Promise.reject(new Error('token table unavailable')) : get(inferenceId),
      );

    // Act
    const outcome = await runLocalAsyncInference({
      environment: env,
      stateMachine: sandbox.workflows.asyncInference,
      input: runInput(['pair-1', 'pair-2'], 60) as never,
      runId: 'e2e-lost',
      timeoutScale: 5 / 900,
      heartbeatIntervalMs: null,
    });

    // Assert
    expect(outcome.result.status).toBe('SUCCEEDED');
    const summary = (outcome.result as { output: unknown }).output as AsyncRunSummary;
    expect(summary).toMatchObject({ inputs: 2, completed: 1, failed: 0, timedOut: 1 });
    const [, lost] = await itemsOf(env, summary);
    // AWS names a heartbeat expiry States.HeartbeatTimeout; the local runner, States.Timeout.
    expect(lost).toMatchObject({
      status: 'TimedOut',
      failureReason: expect.stringMatching(
        /^States\.(Heartbeat)?Timeout: no notification arrived before the wait's timeout$/,
      ),
    });
    const undelivered = env.platform.notifications.undelivered();
    expect(undelivered).toHaveLength(1);
    expect(undelivered[0]?.notification.message).toContain(`"inferenceId":"${lostId}"`);
  }, 60_000);
});

describe('npm run start:async', () => {
  it('exits 2 naming every missing input, before any model server starts', async () => {
    // Prepare
    const err: string[] = [];
    const io = {
      stdout: { write: () => true },
      stderr: { write: (text: string) => err.push(text) },
      cwd: join(sandbox.dir, 'cli-missing'),
      workflows: sandbox.workflows,
    };
    const missing = [
      's3://local-artifacts/inputs/e2e/gone-1.bin',
      's3://local-artifacts/inputs/e2e/gone-2.bin',
    ];
    const path = join(sandbox.dir, 'missing-inputs.json');
    await writeFile(
      path,
      JSON.stringify({
        endpoint: {
          modelDataUrl: 's3://local-artifacts/models/example-cnn/model.tar.gz',
          framework: 'onnx',
          instanceType: 'ml.c5.large',
        },
        inputs: missing,
      }),
    );

    // Act
    const outcome = await runAsyncCli(['--input', path, '--store', 'store', '--runs', 'runs'], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(err.join('')).toContain(
      [
        `  - inputs[0]: got "${missing[0] ?? ''}", expected an object that exists and that the workflow can read`,
        `  - inputs[1]: got "${missing[1] ?? ''}", expected an object that exists and that the workflow can read`,
      ].join('\n'),
    );
    expect(outcome.serverPids).toEqual([]);
  }, 60_000);

  it('runs examples/local-async.json: a burst of 20 from zero instances, with a summary table and files', async () => {
    // Prepare
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: (text: string) => err.push(text) },
      cwd: join(sandbox.dir, 'cli'),
      workflows: sandbox.workflows,
    };
    const example = fileURLToPath(new URL('../../../examples/local-async.json', import.meta.url));

    // Act
    const outcome = await runAsyncCli(
      ['--input', example, '--run-id', 'cli-demo', '--store', 'store', '--runs', 'runs'],
      io,
    );

    // Assert
    const stdout = out.join('');
    expect(err.join('')).toBe('');
    expect(outcome.exitCode).toBe(0);
    expect(outcome.summary).toMatchObject({ inputs: 20, completed: 20, failed: 0, timedOut: 0 });
    expect(outcome.summary?.benchmark).toMatchObject({ burstSize: 20, instancesAtStart: 0 });
    expect(outcome.summary?.benchmark?.scaleOutFromZeroMs).toBeGreaterThan(0);
    expect(stdout).toMatch(/Scaling: Setting desired instance count to 1\. Cause: HasBacklogWithoutCapacity/);
    expect(stdout).toMatch(/inputs: 20 sent · /);
    // Every input and result as the file the local store keeps it in.
    expect(
      stdout.match(
        /^ {2}\d+ +store\/local-artifacts\/inputs\/example-cnn\/input-\d{4}\.bin +Completed .* runs\/cli-demo\/async\/output\/\S+$/gm,
      ),
    ).toHaveLength(20);
    expect(stdout).not.toContain('s3://local-artifacts/');
    expect(stdout).toMatch(/scale-out from zero: [\d,]+ ms/);
    expect(stdout).toContain(join('runs', 'cli-demo', 'async', 'summary.json'));
    expect(existsSync(outcome.summaryFiles?.json ?? '')).toBe(true);
    for (const pid of outcome.serverPids) expect(isAlive(pid)).toBe(false);
  }, 90_000);
});
