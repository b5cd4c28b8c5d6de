import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ValidatedAsyncRun } from '../../../core/contracts/async-state.js';
import { runAsyncCli } from '../../../local/cli/async/main.js';
import { withAsyncLocalDefaults } from '../../../local/cli/async/local-input.js';
import { createLocalAsyncEnvironment } from '../../../local/environment/async-environment.js';
import { seedAsyncExampleObjects } from '../../../local/cli/async/example-inputs.js';
import { synthesisPath } from '../../../local/synthesis/synthesis-cache.js';
import { type SynthesizedWorkflows, synthesizedWorkflows } from '../../support/synthesized-workflows.js';
import { silentLogger } from '../../support/memory-object-store.js';
import { cliSandbox } from './support/cli-sandbox.js';

const sandbox = cliSandbox('async-plan-cli-');
const { capture, inputFile } = sandbox;

const EXAMPLE = fileURLToPath(new URL('../../../examples/local-async.json', import.meta.url));
const RUN_ID = 'async-plan-demo';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

/** stderr without the line of an earlier killed run's temporary files (swept by any CLI start). */
function ownLines(stderr: string): string {
  return stderr.replace(/^Removed the temporary files of .*\n/m, '');
}

async function cli(argv: readonly string[]) {
  const { io, stdout, stderr } = capture();
  const args = [...argv, '--run-id', RUN_ID, '--store', 'store', '--runs', 'runs'];
  const outcome = await runAsyncCli(args, { ...io, workflows });
  return { outcome, stdout: stdout(), stderr: ownLines(stderr()) };
}

describe('runAsyncCli --plan', () => {
  it('prints the endpoint to deploy, the inputs, the batches and the concurrency of examples/local-async.json', async () => {
    // Act
    const { outcome, stdout } = await cli(['--plan', '--input', EXAMPLE]);

    // Assert
    expect(outcome.exitCode).toBe(0);
    expect(stdout.split('\n')).toEqual(
      expect.arrayContaining([
        `Plan of async run ${RUN_ID} (Example CNN on a local async endpoint: a burst of 20 from zero instances): accepted, nothing created.`,
        expect.stringMatching(
          /^Endpoint: deploy mso-async-plan-demo-[0-9a-f]{8}-ep-async, deleted after the run$/,
        ),
        '  ml.c5.large, from 0 to 2 instance(s), scaled out at a backlog of 5 per instance, 2 invocation(s) at a time per instance',
        `  model data ${join('store', 'local-artifacts', 'models', 'example-cnn', 'model.tar.gz')}, image local`,
        'Inputs: 20 (a benchmark: a burst of 20 sent at once, once the endpoint has scaled in to zero instances)',
        `    ${join('store', 'local-artifacts', 'inputs', 'example-cnn', 'input-0001.bin')}`,
        '    … and 17 more',
        'Batches: 1 of at most 40 inputs; 1 batch(es) at a time × 20 inputs each: at most 20 requests in flight',
        `Invocation: application/octet-stream, invocation timeout 60 s, request TTL 3600 s, each input waited for at most ${workflows.asyncWaitTimeoutSeconds} s`,
        '  history: up to 1380 events of the 24000 budget (5.8 %; the quota is 25000 events per execution, the rest is kept for retries)',
        `Start it: npm run start:async -- --input ${EXAMPLE}`,
      ]),
    );
  });

  it("prints the run's estimated cost and duration on AWS, with their assumptions, and that a local run costs nothing", async () => {
    // Act
    const { outcome, stdout } = await cli(['--plan', '--input', EXAMPLE]);

    // Assert: ml.c5.large ($0.102/h): 600 + 3600 s at one instance, then 2 × (5 rounds of 60 s + 120 s).
    expect(outcome.exitCode).toBe(0);
    const lines = stdout.split('\n');
    const first = lines.findIndex((line) => line.startsWith('Estimated cost on AWS'));
    expect(lines.slice(first, first + 9)).toEqual([
      'Estimated cost on AWS: at most $0.14 (ml.c5.large at $0.102/h); a local run costs nothing',
      '  prices: Real-Time Inference, on-demand, per instance-hour, us-east-1, recorded 2025-10-01 (https://aws.amazon.com/sagemaker/pricing/)',
      '  assumes: endpoint billed 10 min while creating, at 1 instance',
      '  assumes: a benchmark waits up to 60 min for zero instances, then 10 min for the scale-out from zero',
      '  assumes: 20 input(s), 4 at a time, each taking its whole invocationTimeoutSeconds (60 s): 300 s, billed at all 2 instance(s) (maxInstanceCount)',
      '  assumes: deleted after the run (2 min at 2 instance(s))',
      '  assumes: Step Functions, Lambda, S3 and SNS requests not counted (cents)',
      `Estimated duration on AWS: at most 87 min as assumed above; 9.2 h if every wait takes its whole deadline (each input ${workflows.asyncWaitTimeoutSeconds} s)`,
      '',
    ]);
  });

  it('prints with --json the plan and manifest items of the first state, "Validate async run"', async () => {
    // Prepare: the first state's own local handler, over an environment whose writes stay in memory.
    const environment = createLocalAsyncEnvironment({
      storeDir: join(sandbox.dir(), 'reference-store'),
      runsDir: join(sandbox.dir(), 'reference-runs'),
      writesInMemory: true,
      logger: silentLogger,
      waitTimeoutSeconds: workflows.asyncWaitTimeoutSeconds,
    });
    const input = withAsyncLocalDefaults(JSON.parse(await readFile(EXAMPLE, 'utf8')) as unknown);
    await seedAsyncExampleObjects(environment.store, input);
    const validate = environment.handlers['validate-async-run'];
    if (validate === undefined) throw new Error('no validate-async-run handler');
    const validated = (await validate(
      { runId: RUN_ID, input },
      new AbortController().signal,
    )) as ValidatedAsyncRun;
    const manifest = JSON.parse(
      new TextDecoder().decode(await environment.store.getBytes(validated.plan.manifestUri)),
    ) as { items: unknown };
    await environment.close();

    // Act
    const { outcome, stdout } = await cli(['--plan', '--json', '--input', EXAMPLE]);

    // Assert: the same plan, but for the time it was made.
    expect(outcome.exitCode).toBe(0);
    const printed = JSON.parse(stdout) as { plan: { plannedAtEpochMs: number } };
    expect(printed).toEqual({
      plan: { ...validated.plan, plannedAtEpochMs: printed.plan.plannedAtEpochMs },
      items: manifest.items,
    });
  });

  it('creates nothing: no file in the store or the runs folder (no manifest), no model server', async () => {
    // Act
    const { outcome } = await cli(['--plan', '--input', EXAMPLE]);

    // Assert: the example model and inputs were written in memory only.
    expect(await readdir(sandbox.dir())).toEqual([]);
    expect(outcome.serverPids).toEqual([]);
  });

  it('reads the workflows from the synthesis cache when given none, and says from where', async () => {
    // Prepare: the cache holds this synthesis already (beforeAll read it).
    const { io, stderr } = capture();

    // Act
    const outcome = await runAsyncCli(
      ['--plan', '--input', EXAMPLE, '--run-id', RUN_ID, '--store', 'store', '--runs', 'runs'],
      io,
    );

    // Assert
    const lines = ownLines(stderr()).split('\n');
    expect([outcome.exitCode, lines.filter((line) => /synthesi/i.test(line))]).toEqual([
      0,
      [
        expect.stringMatching(
          `\\] Read ${workflows.asyncInference.name}, synthesized earlier, from ${synthesisPath()}$`,
        ),
      ],
    ]);
  });

  it('refuses a missing input with exit code 2 and the issue lines a run prints', async () => {
    // Prepare
    const missing = 's3://local-artifacts/inputs/none/input-0001.bin';
    const path = await inputFile({
      endpoint: {
        modelDataUrl: 's3://local-artifacts/models/example-cnn/model.tar.gz',
        framework: 'onnx',
        instanceType: 'ml.c5.large',
      },
      inputs: [missing],
    });

    // Act
    const planned = await cli(['--plan', '--input', path]);

    // Assert
    const ran = await cli(['--input', path]);
    expect([planned.outcome.exitCode, planned.stdout, planned.stderr]).toEqual([
      2,
      '',
      `Invalid run input in input.json:\n  - inputs[0]: got "${missing}", expected an object that exists and that the workflow can read\n`,
    ]);
    expect([ran.outcome.exitCode, ran.stderr]).toEqual([2, planned.stderr]);
  });
});
