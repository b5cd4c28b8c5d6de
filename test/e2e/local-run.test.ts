/**
 * The whole local path, in-process: the CLI runs the synthesized optimization state machine over
 * the local adapters, with real model servers, a real compilation and real load tests (kept short).
 * Also the fault cases: a model server killed mid-test, an interrupted run, a failed state.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RESOURCE_NAME_PREFIX, runToken } from '../../handlers/contracts/names.js';
import type { Report } from '../../handlers/report/report.js';
import {
  EXAMPLE_MODEL_URI,
  EXAMPLE_PAYLOAD_URI,
  seedExampleObjects,
} from '../../local/cli/example-objects.js';
import { type CliIo, runCli } from '../../local/cli/main.js';
import { createLocalEnvironment, runLocalOptimization } from '../../local/local-environment.js';
import type { RunnerEvent } from '../../local/runner/index.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { silentLogger } from '../support/memory-object-store.js';
import { isAlive } from '../local/platform/support/model-artifacts.js';

let workflows: SynthesizedWorkflows;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'e2e-local-'));
  workflows = synthesizedWorkflows();
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** One thread per server: two servers never run at once, and the figures stay steady on 2 cores. */
const ONE_THREAD = { MODEL_SERVER_INTRA_OP_THREADS: '1' };

function tinyInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: { artifactUri: EXAMPLE_MODEL_URI, framework: 'onnx', inputShape: { input: [1, 3, 32, 32] } },
    payload: { uri: EXAMPLE_PAYLOAD_URI, contentType: 'application/octet-stream' },
    compilation: { targets: ['ml_c5'] },
    candidates: [
      { id: 'plain', instanceType: 'ml.c5.large', environment: ONE_THREAD },
      { id: 'neo', instanceType: 'ml.c5.large', compiledFor: 'ml_c5', environment: ONE_THREAD },
    ],
    loadPlan: { steps: [1], warmupSeconds: 0.5, stepDurationSeconds: 1.5, stopAtPlateau: false },
    sla: { p95LatencyMs: 1000 },
    maxConcurrentCandidates: 1,
    ...overrides,
  };
}

/** Runs the CLI in-process on `input`; `watch` sees stdout as it is written. */
async function cli(
  runId: string,
  input: Record<string, unknown>,
  options: { watch?: (stdout: string) => void; signal?: AbortSignal } = {},
) {
  const path = join(dir, `${runId}.json`);
  await writeFile(path, JSON.stringify(input));
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: {
      write: (text: string) => {
        stdout += text;
        options.watch?.(stdout);
      },
    },
    stderr: { write: (text: string) => (stderr += text) },
    cwd: dir,
    workflows,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const outcome = await runCli(
    ['--input', path, '--run-id', runId, '--store', 'store', '--runs', 'runs'],
    io,
  );
  return { outcome, stdout: () => stdout, stderr: () => stderr };
}

describe('local mode end to end', () => {
  it('runs the synthesized workflow through the CLI: three reports, and the compiled candidate is faster', async () => {
    // Act
    const { outcome, stdout, stderr } = await cli('e2e-happy', tinyInput());

    // Assert
    expect(stderr()).toBe('');
    expect(outcome.exitCode).toBe(0);
    const files = outcome.reportFiles;
    expect(files).toEqual({
      json: join(dir, 'runs', 'e2e-happy', 'report.json'),
      markdown: join(dir, 'runs', 'e2e-happy', 'report.md'),
      html: join(dir, 'runs', 'e2e-happy', 'report.html'),
    });
    expect([files?.markdown, files?.html].every((file) => file !== undefined && existsSync(file))).toBe(true);
    const report = JSON.parse(await readFile(files?.json ?? '', 'utf8')) as Report;
    expect(report.measuredLocally).toBe(true);
    const p50 = (id: string) => report.candidates.find((c) => c.id === id)?.steps[0]?.latencyMs?.p50 ?? NaN;
    expect(report.candidates.map((c) => [c.id, c.status])).toEqual([
      ['plain', 'MEASURED'],
      ['neo', 'MEASURED'],
    ]);
    expect(p50('neo')).toBeLessThan(p50('plain'));
    // The local CLI measures the sustainable load 3 times (two repeat rounds through the workflow).
    expect(report.candidates.map((c) => [c.id, c.repeats?.length, c.spread?.n])).toEqual([
      ['plain', 2, 3],
      ['neo', 2, 3],
    ]);
    expect(report.compiledComparisons?.map((c) => [c.uncompiledId, c.compiledId])).toEqual([
      ['plain', 'neo'],
    ]);
    // The deploy requests are the ones the local run sent, and say which image AWS would use.
    const neo = report.candidates.find((c) => c.id === 'neo')?.deploy;
    expect(neo?.createModel.PrimaryContainer.Image).toBe('local');
    expect(neo?.onAws).toEqual({
      imageUri: '785573368785.dkr.ecr.us-east-1.amazonaws.com/sagemaker-neo-onnx:1.5.0-cpu-py3',
      source: 'table: onnx 1.5.0 compiled for x86 CPU (AWS docs: Neo Inference Container Images)',
    });
    // report.md shows the local files a reader opens; report.json keeps the URIs.
    const markdown = await readFile(files?.markdown ?? '', 'utf8');
    expect(markdown).toContain('- Raw result: load-tests/plain/result.json\n');
    expect(markdown).toContain(
      '; model data model/model.tar.gz (s3://local-artifacts/runs/e2e-happy/model/model.tar.gz in the requests).',
    );
    expect(report.candidates[0]?.resultUri).toBe(
      's3://local-artifacts/runs/e2e-happy/load-tests/plain/result.json',
    );
    expect(stdout()).toContain('Summary of run e2e-happy');
    expect(stdout()).toContain('runs/e2e-happy/report.html');
    expect(outcome.serverPids).toHaveLength(2);
    expect(outcome.serverPids.filter(isAlive)).toEqual([]);
  }, 60_000);

  it('fails only the candidate whose model server dies mid-test, with the reason, measures the other and exits 5 (partial)', async () => {
    // Prepare
    let killed: number | undefined;
    const killPlainMidTest = (stdout: string): void => {
      const pid = /plain: in service at \S+ \(pid (\d+)/.exec(stdout)?.[1];
      if (killed !== undefined || pid === undefined || !/plain: step 1\/1 \(concurrency 1\) \d/.test(stdout))
        return;
      killed = Number(pid);
      process.kill(killed, 'SIGKILL');
    };

    // Act
    const { outcome } = await cli(
      'e2e-crash',
      tinyInput({
        // One measurement: this test is about the failed candidate, not the repeats.
        loadPlan: {
          steps: [1],
          warmupSeconds: 0.5,
          stepDurationSeconds: 3,
          stopAtPlateau: false,
          repeats: 1,
        },
      }),
      { watch: killPlainMidTest },
    );

    // Assert
    expect(killed).toBeDefined();
    expect(outcome.exitCode).toBe(5);
    const report = JSON.parse(await readFile(outcome.reportFiles?.json ?? '', 'utf8')) as Report;
    const plain = report.candidates.find((c) => c.id === 'plain');
    expect(plain?.status).toBe('FAILED');
    expect(plain?.failureReason).toMatch(
      new RegExp(`failed during the load test: model server \\(pid ${killed ?? ''}\\) was killed by SIGKILL`),
    );
    expect(report.candidates.find((c) => c.id === 'neo')?.status).toBe('MEASURED');
    expect(outcome.serverPids.filter(isAlive)).toEqual([]);
  }, 60_000);

  it('ends a run where no candidate meets the SLA FAILED with NoRecommendationError, prints the summary and exits 3', async () => {
    // Act: no real model server answers within a microsecond.
    const { outcome, stdout, stderr } = await cli(
      'e2e-no-sla',
      tinyInput({
        sla: { p95LatencyMs: 0.001 },
        compilation: { targets: [] },
        candidates: [{ id: 'plain', instanceType: 'ml.c5.large', environment: ONE_THREAD }],
      }),
    );

    // Assert
    expect(outcome.exitCode).toBe(3);
    expect(stdout()).toContain('No recommendation: no candidate met the SLA at any load step');
    expect(stderr()).toMatch(
      /^Run e2e-no-sla ended FAILED with NoRecommendationError: No recommendation: no candidate met the SLA; 1 candidate: 1 missed the SLA\. Report: runs\/e2e-no-sla\/report\.html\n$/,
    );
    expect(existsSync(outcome.reportFiles?.html ?? '')).toBe(true);
    expect(outcome.serverPids.filter(isAlive)).toEqual([]);
  }, 60_000);

  it('compares a run of a model package version with the group’s last approved one, as the registry trigger’s runs are', async () => {
    // Prepare: what the trigger adds to a run input, for two versions of one group.
    const version = (v: number) =>
      tinyInput({
        compilation: { targets: [] },
        candidates: [{ id: 'plain', instanceType: 'ml.c5.large', environment: ONE_THREAD }],
        // One measurement each: the comparison is what is tested, not the noise (the CLI's default
        // of three would add two rounds per run).
        loadPlan: {
          steps: [1],
          warmupSeconds: 0.5,
          stepDurationSeconds: 1.5,
          stopAtPlateau: false,
          repeats: 1,
        },
        modelPackage: {
          groupName: 'e2e-group',
          version: v,
          arn: `arn:aws:sagemaker:us-east-1:123456789012:model-package/e2e-group/${v}`,
        },
      });
    const first = await cli('e2e-registry-v1', version(1));

    // Act
    const second = await cli('e2e-registry-v2', version(2));

    // Assert
    expect([first.outcome.exitCode, second.outcome.exitCode]).toEqual([0, 0]);
    expect(first.stdout()).toContain(
      "\nNo baseline: no earlier approved version of model package group e2e-group has a report, so version 1 is the group's first baseline.\n",
    );
    expect(second.stdout()).toMatch(
      /\n(Regressed|Improved|Unchanged within noise) versus version 1 \(run e2e-registry-v1\): plain \(recommended by e2e-registry-v1\): /,
    );
    expect(second.stdout()).toContain(
      `\n  Baseline report: ${join(dir, 'runs', 'e2e-registry-v1', 'report.json')}\n`,
    );
    const report = JSON.parse(await readFile(second.outcome.reportFiles?.json ?? '', 'utf8')) as Report;
    expect(report.baselineComparison?.baseline?.reportUri).toBe(
      's3://local-artifacts/runs/e2e-registry-v1/report.json',
    );
  }, 60_000);

  it('stops an interrupted run (Ctrl-C), cleans up, exits 130 and leaves no process', async () => {
    // Prepare
    const interrupt = new AbortController();
    const abortOnceInService = (stdout: string): void => {
      if (stdout.includes(': in service at ')) interrupt.abort();
    };

    // Act
    const { outcome, stderr } = await cli(
      'e2e-interrupted',
      tinyInput({ loadPlan: { steps: [1], stepDurationSeconds: 30 } }),
      {
        watch: abortOnceInService,
        signal: interrupt.signal,
      },
    );

    // Assert
    expect(outcome.exitCode).toBe(130);
    expect(stderr()).toBe(
      'Run e2e-interrupted interrupted. Clean-up ran: every endpoint was deleted and every model server stopped.\n',
    );
    expect(outcome.serverPids.length).toBeGreaterThan(0);
    expect(outcome.serverPids.filter(isAlive)).toEqual([]);
    expect(existsSync(join(dir, 'runs', 'e2e-interrupted', 'report.json'))).toBe(false);
  }, 60_000);

  it('measures a candidate of two instances end to end: two model servers behind one front, both serving, all stopped', async () => {
    // Prepare
    const environment = createLocalEnvironment({
      storeDir: join(dir, 'store'),
      runsDir: join(dir, 'runs'),
      logger: silentLogger,
    });
    const input = tinyInput({
      compilation: { targets: [] },
      candidates: [
        { id: 'pair', instanceType: 'ml.c5.large', initialInstanceCount: 2, environment: ONE_THREAD },
      ],
      loadPlan: {
        steps: [2],
        warmupSeconds: 0.5,
        stepDurationSeconds: 1,
        stopAtPlateau: false,
        kneeProbes: 0,
        repeats: 1,
      },
      model: { artifactUri: EXAMPLE_MODEL_URI, framework: 'onnx', image: 'local' },
    });
    await seedExampleObjects(environment.store, input);
    const runId = 'e2e-two-instances';
    const endpointName = `${RESOURCE_NAME_PREFIX}${runToken(runId)}-ep-pair`;

    // Act
    const outcome = await runLocalOptimization({
      environment,
      stateMachine: workflows.optimization,
      input: input as never,
      runId,
    });
    const servers = environment.host
      .launchedServers()
      .filter((server) => server.endpointName === endpointName);
    const perInstance = environment.host.invocationsPerInstance(endpointName) ?? [];
    const left = await environment.host.listRunResources(runId, `${RESOURCE_NAME_PREFIX}${runToken(runId)}-`);
    await environment.close();

    // Assert
    expect(outcome.result.status).toBe('SUCCEEDED');
    expect(servers).toHaveLength(2);
    expect(perInstance.map(({ pid }) => pid)).toEqual(servers.map(({ pid }) => pid));
    expect(perInstance.every(({ invocations }) => invocations > 0)).toBe(true);
    expect(left).toEqual({ endpoints: [], endpointConfigs: [], models: [], compilationJobs: [] });
    expect(servers.map(({ pid }) => pid ?? -1).filter(isAlive)).toEqual([]);
  }, 60_000);

  it('deletes every endpoint through the workflow’s clean-up when a state fails after they exist', async () => {
    // Prepare
    const environment = createLocalEnvironment({
      storeDir: join(dir, 'store'),
      runsDir: join(dir, 'runs'),
      logger: silentLogger,
    });
    const input = tinyInput({
      compilation: { targets: [] },
      candidates: [{ id: 'kept', instanceType: 'ml.c5.large', environment: ONE_THREAD }],
      cleanup: { policy: 'keep-recommended' },
      model: { artifactUri: EXAMPLE_MODEL_URI, framework: 'onnx', image: 'local' },
      loadPlan: {
        steps: [1],
        warmupSeconds: 0.5,
        stepDurationSeconds: 1.5,
        stopAtPlateau: false,
        repeats: 1,
      },
    });
    await seedExampleObjects(environment.store, input);
    const events: RunnerEvent[] = [];
    const storeDown = Object.assign(new Error('disk full'), { name: 'NetworkingError' });

    // Act
    const outcome = await runLocalOptimization({
      environment,
      stateMachine: workflows.optimization,
      input: input as never,
      runId: 'e2e-failed-state',
      onEvent: (event) => events.push(event),
      overrides: { recommend: () => Promise.reject(storeDown) },
    });
    const pidsBeforeClose = environment.host.launchedServers().map((server) => server.pid ?? -1);
    const left = await environment.host.listRunResources(
      'e2e-failed-state',
      `${RESOURCE_NAME_PREFIX}${runToken('e2e-failed-state')}-`,
    );
    await environment.close();

    // Assert
    expect(outcome.result).toMatchObject({ status: 'FAILED', error: 'NetworkingError' });
    const cleanUp = events.find(
      (event) => event.type === 'StateExited' && event.stateName === 'Clean up after failure',
    );
    expect(cleanUp?.type === 'StateExited' ? cleanUp.output : undefined).toMatchObject({
      cleanUp: { endpoints: [expect.stringMatching(/-ep-kept$/)] },
    });
    expect(left).toEqual({ endpoints: [], endpointConfigs: [], models: [], compilationJobs: [] });
    expect(pidsBeforeClose.filter(isAlive)).toEqual([]);
  }, 60_000);
});
