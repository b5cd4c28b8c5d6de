/**
 * The local path's other outcomes, in-process as in local-run.test.ts (the CLI or the local
 * environment over the synthesized state machine, real model servers): a model server killed
 * mid-test, no recommendation, a registry comparison, an interrupted run, a candidate of two
 * instances and a failed state. None compares latencies, so they run beside the other suites.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RESOURCE_NAME_PREFIX, runToken } from '../../core/contracts/names.js';
import type { Report } from '../../core/report/report.js';
import type { MachineLoadSample } from '../../local/platform/machine-load.js';
import { EXAMPLE_MODEL_URI, seedExampleObjects } from '../../local/cli/example-objects.js';
import {
  createLocalEnvironment,
  runLocalOptimization,
} from '../../local/environment/optimization-environment.js';
import type { RunnerEvent } from '../../local/runner/index.js';
import { synthesizedWorkflows } from '../support/synthesized-workflows.js';
import { silentLogger } from '../support/memory-object-store.js';
import { isAlive } from '../local/platform/support/model-artifacts.js';
import { cli, type CliContext, ONE_THREAD, tinyInput } from './support/local-cli.js';

let context: CliContext;

beforeAll(async () => {
  context = { dir: await mkdtemp(join(tmpdir(), 'e2e-outcomes-')), workflows: synthesizedWorkflows() };
}, 120_000);

afterAll(async () => {
  await rm(context.dir, { recursive: true, force: true });
});

describe('local mode end to end: the other outcomes', () => {
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
      context,
      'e2e-crash',
      tinyInput({
        // One measurement: this test is about the failed candidate, not the repeats.
        loadPlan: {
          steps: [1],
          warmupSeconds: 0.5,
          // Long enough that the first progress line (after a second) comes while plain is measured.
          stepDurationSeconds: 2,
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
      context,
      'e2e-no-sla',
      tinyInput({
        sla: { p95LatencyMs: 0.001 },
        loadPlan: { steps: [1], warmupSeconds: 0.3, stepDurationSeconds: 0.5, stopAtPlateau: false },
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

  it("records a busy machine's load in report.json and says a miss may be the machine's, next to the verdict", async () => {
    // Prepare: injected readings of a machine whose cores others take (never this machine's load).
    let stolen = 0;
    const busy = (): MachineLoadSample => {
      stolen += 500;
      return { load1: 64, running: 65, ticks: { total: stolen * 4, steal: stolen } };
    };

    // Act
    const { outcome, stdout } = await cli(
      context,
      'e2e-busy',
      tinyInput({
        sla: { p95LatencyMs: 0.001 },
        loadPlan: { steps: [1], warmupSeconds: 0.3, stepDurationSeconds: 0.5, stopAtPlateau: false },
        compilation: { targets: [] },
        candidates: [{ id: 'plain', instanceType: 'ml.c5.large', environment: ONE_THREAD }],
      }),
      { sampleMachineLoad: busy },
    );
    const report = JSON.parse(await readFile(outcome.reportFiles?.json ?? '', 'utf8')) as Report;
    const markdown = await readFile(outcome.reportFiles?.markdown ?? '', 'utf8');

    // Assert
    expect(outcome.exitCode).toBe(3);
    expect(report.machineLoad).toMatchObject({
      before: { procsRunning: 65 },
      during: { maxProcsRunning: 65 },
      stealPercent: 25,
    });
    expect(report.machineLoad?.busyBecause).toContain('25 % of the CPU time stolen by the hypervisor');
    expect(markdown).toMatch(
      /\(outcome `no-candidate-met-sla`\)\n\n> The machine was busy \(.*\): a miss may be the machine's/,
    );
    expect(stdout()).toMatch(
      /No recommendation: .*\nThe machine was busy \(.*\): a miss may be the machine's/,
    );
  }, 60_000);

  it('compares a run of a model package version with the group’s last approved one, as the registry trigger’s runs are', async () => {
    // Prepare: what the trigger adds to a run input, for two versions of one group.
    const version = (v: number) =>
      tinyInput({
        compilation: { targets: [] },
        candidates: [{ id: 'plain', instanceType: 'ml.c5.large', environment: ONE_THREAD }],
        // One short measurement each: the comparison is what is tested, not the noise or the
        // figures (the CLI's default of three would add two rounds per run).
        loadPlan: {
          steps: [1],
          warmupSeconds: 0.5,
          stepDurationSeconds: 0.5,
          stopAtPlateau: false,
          repeats: 1,
        },
        modelPackage: {
          groupName: 'e2e-group',
          version: v,
          arn: `arn:aws:sagemaker:us-east-1:123456789012:model-package/e2e-group/${v}`,
        },
      });
    const first = await cli(context, 'e2e-registry-v1', version(1));

    // Act
    const second = await cli(context, 'e2e-registry-v2', version(2));

    // Assert
    expect([first.outcome.exitCode, second.outcome.exitCode]).toEqual([0, 0]);
    expect(first.stdout()).toContain(
      "\nNo baseline: no earlier approved version of model package group e2e-group has a report, so version 1 is the group's first baseline.\n",
    );
    expect(second.stdout()).toMatch(
      /\n(Regressed|Improved|Unchanged within noise) versus version 1 \(run e2e-registry-v1\): plain \(recommended by e2e-registry-v1\): /,
    );
    expect(second.stdout()).toContain(
      `\n  Baseline report: ${join(context.dir, 'runs', 'e2e-registry-v1', 'report.json')}\n`,
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
      context,
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
    expect(existsSync(join(context.dir, 'runs', 'e2e-interrupted', 'report.json'))).toBe(false);
  }, 60_000);

  it('measures a candidate of two instances end to end: two model servers behind one front, both serving, all stopped', async () => {
    // Prepare
    const environment = createLocalEnvironment({
      storeDir: join(context.dir, 'store'),
      runsDir: join(context.dir, 'runs'),
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
      stateMachine: context.workflows.optimization,
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
    expect(left).toEqual({
      endpoints: [],
      endpointConfigs: [],
      models: [],
      compilationJobs: [],
      optimizationJobs: [],
    });
    expect(servers.map(({ pid }) => pid ?? -1).filter(isAlive)).toEqual([]);
  }, 60_000);

  it('deletes every endpoint through the workflow’s clean-up when a state fails after they exist', async () => {
    // Prepare
    const environment = createLocalEnvironment({
      storeDir: join(context.dir, 'store'),
      runsDir: join(context.dir, 'runs'),
      logger: silentLogger,
    });
    const input = tinyInput({
      compilation: { targets: [] },
      candidates: [{ id: 'kept', instanceType: 'ml.c5.large', environment: ONE_THREAD }],
      cleanup: { policy: 'keep-recommended' },
      model: { artifactUri: EXAMPLE_MODEL_URI, framework: 'onnx', image: 'local' },
      // A short window: the failure comes after the load test, whose figures are not asserted.
      loadPlan: {
        steps: [1],
        warmupSeconds: 0.5,
        stepDurationSeconds: 0.5,
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
      stateMachine: context.workflows.optimization,
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
    expect(left).toEqual({
      endpoints: [],
      endpointConfigs: [],
      models: [],
      compilationJobs: [],
      optimizationJobs: [],
    });
    expect(pidsBeforeClose.filter(isAlive)).toEqual([]);
  }, 60_000);
});
