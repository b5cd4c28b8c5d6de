import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { takeLocalCalibration } from '../../../local/cli/calibration.js';
import { describe, expect, it } from '@jest/globals';
import { validateAndPlan } from '../../../core/steps/optimization/validate-and-plan.js';
import { LocalInstanceQuotas } from '../../../local/adapters/local-instance-quotas.js';
import { seedExampleObjects } from '../../../local/cli/example-objects.js';
import { withLocalDefaults } from '../../../local/cli/local-input.js';
import { runCli } from '../../../local/cli/main.js';
import { LOCAL_ARTIFACTS_BUCKET } from '../../../local/environment/workflow-environment.js';
import { MemoryObjectStore, silentLogger } from '../../support/memory-object-store.js';
import { cliSandbox } from './support/cli-sandbox.js';

const sandbox = cliSandbox('plan-cli-');
const { capture, inputFile } = sandbox;

const EXAMPLE = fileURLToPath(new URL('../../../examples/local.json', import.meta.url));
const RUN_ID = 'plan-demo';

/** The example as the CLI hands it to the first state: its local calibration taken out. */
async function example(): Promise<Record<string, unknown>> {
  const document = JSON.parse(await readFile(EXAMPLE, 'utf8')) as Record<string, unknown>;
  return takeLocalCalibration(document).input as Record<string, unknown>;
}

/** stderr without the line of an earlier killed run's temporary files (swept by any CLI start). */
function ownLines(stderr: string): string {
  return stderr.replace(/^Removed the temporary files of .*\n/m, '');
}

/** `--plan` of an input file, over the sandbox's store and runs folders. */
function plan(inputPath: string, ...flags: string[]) {
  const { io, stdout, stderr } = capture();
  const args = [
    '--plan',
    ...flags,
    '--input',
    inputPath,
    '--run-id',
    RUN_ID,
    '--store',
    'store',
    '--runs',
    'runs',
  ];
  return runCli(args, io).then((outcome) => ({ outcome, stdout: stdout(), stderr: ownLines(stderr()) }));
}

/** The same input run for real: it is refused before anything starts, so this is quick. */
function run(inputPath: string) {
  const { io, stdout, stderr } = capture();
  const args = ['--input', inputPath, '--run-id', RUN_ID, '--store', 'store', '--runs', 'runs'];
  return runCli(args, io).then((outcome) => ({ outcome, stdout: stdout(), stderr: ownLines(stderr()) }));
}

describe('runCli --plan', () => {
  it('prints the candidates, the compilation, the load plan and the estimate of examples/local.json', async () => {
    // Act
    const { outcome, stdout } = await plan(EXAMPLE);

    // Assert
    expect(outcome.exitCode).toBe(0);
    const lines = stdout.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        `Plan of run ${RUN_ID} (Example CNN on this machine: uncompiled vs compiled, two CPU budgets, two server settings): accepted, nothing created.`,
        '    c5-large          ml.c5.large × 1   -             -                                 0.07      $0.1020/h, price table, us-east-1, 2025-10-01',
        '    c5-large-neo      ml.c5.large × 1   ml_c5         -                                 0.05      $0.1020/h, price table, us-east-1, 2025-10-01',
        '    c5-xlarge-neo-2w  ml.c5.xlarge × 1  ml_c5         SAGEMAKER_MODEL_SERVER_WORKERS=2  0.05      $0.2040/h, price table, us-east-1, 2025-10-01',
        'Load plan: closed model, steps 1, 2, 4, 0.5 s warm-up + 1.5 s per step, 1 worker(s), up to 3 knee probe(s), sustainable load measured 3 times (repeats interleaved across candidates): at most 16 s per candidate; 3 candidate(s), 1 at a time: about 48 s of load tests',
        'Estimated cost on AWS: $0.17 (no maxCostUsd set); a local run costs nothing',
        '  assumes: endpoint billed 10 min while creating and 2 min while deleting',
        `Start it: npm start -- --input ${EXAMPLE}`,
      ]),
    );
    expect(lines).toContain(
      '  prices: the recorded table (Real-Time Inference, on-demand, per instance-hour) for ml.c5.large, ml.c5.xlarge; rows from https://aws.amazon.com/sagemaker/pricing/',
    );
  });

  it.each([
    [
      'local.json',
      'Estimated cost on AWS: $0.17 (no maxCostUsd set); a local run costs nothing',
      'Estimated duration on AWS: about 54 min as assumed above (3 waves of endpoints, compilation jobs to their maxRuntimeSeconds); at most 3.1 h if every endpoint and job takes its whole deadline',
    ],
    [
      'local-full.json',
      'Estimated cost on AWS: $0.17 (no maxCostUsd set); a local run costs nothing',
      'Estimated duration on AWS: about 56 min as assumed above (3 waves of endpoints, compilation jobs to their maxRuntimeSeconds); at most 3.2 h if every endpoint and job takes its whole deadline',
    ],
    [
      'local-quality.json',
      'Estimated cost on AWS: $0.14 (no maxCostUsd set); a local run costs nothing',
      'Estimated duration on AWS: about 54 min as assumed above (3 waves of endpoints, compilation jobs to their maxRuntimeSeconds); at most 3.1 h if every endpoint and job takes its whole deadline',
    ],
    [
      'local-routing.json',
      'Estimated cost on AWS: $0.08 (no maxCostUsd set); a local run costs nothing',
      'Estimated duration on AWS: about 39 min as assumed above (2 waves of endpoints, compilation jobs to their maxRuntimeSeconds); at most 2.1 h if every endpoint and job takes its whole deadline',
    ],
    [
      'local-serve-target.json',
      'Estimated cost on AWS: $0.31 (no maxCostUsd set); a local run costs nothing',
      'Estimated duration on AWS: about 67 min as assumed above (2 waves of endpoints, compilation jobs to their maxRuntimeSeconds); at most 3.9 h if every endpoint and job takes its whole deadline',
    ],
    [
      'local-generative.json',
      'Estimated cost on AWS: $0.15 (no maxCostUsd set); a local run costs nothing',
      'Estimated duration on AWS: about 55 min as assumed above (3 waves of endpoints, compilation jobs to their maxRuntimeSeconds); at most 3 h if every endpoint and job takes its whole deadline',
    ],
    [
      'local-sweep.json',
      'Estimated cost on AWS: $0.16 (no maxCostUsd set); a local run costs nothing',
      'Estimated duration on AWS: about 64 min as assumed above (4 waves of endpoints, compilation jobs to their maxRuntimeSeconds); at most 3.8 h if every endpoint and job takes its whole deadline',
    ],
  ])("prints examples/%s's cost and duration on AWS", async (name, cost, duration) => {
    // Act
    const { outcome, stdout } = await plan(
      fileURLToPath(new URL(`../../../examples/${name}`, import.meta.url)),
    );

    // Assert
    expect(outcome.exitCode).toBe(0);
    expect(stdout.split('\n').filter((line) => line.startsWith('Estimated '))).toEqual([cost, duration]);
  });

  it('says "no knee probes" for examples/local-routing.json, which asks for none', async () => {
    // Act
    const { stdout } = await plan(
      fileURLToPath(new URL('../../../examples/local-routing.json', import.meta.url)),
    );

    // Assert
    expect(stdout).toMatch(/^Load plan: .*, no knee probes, sustainable load measured 1 time: /m);
  });

  it('prints the Step Functions budgets the plan was checked with', async () => {
    // Act
    const { stdout } = await plan(EXAMPLE);

    // Assert
    expect(stdout).toContain(
      [
        'Step Functions budgets (worst case, checked before anything is created):',
        '  history: up to 1660 events of the 24000 budget (6.9 %; the quota is 25000 events per execution, the rest is kept for retries)',
        '  largest state: 21781 bytes of the 262144-byte quota (8.3 %), the run state after "Benchmark each candidate"',
      ].join('\n'),
    );
  });

  it('prints with --json the plan of the first state, "Validate and plan", and nothing else on stdout', async () => {
    // Prepare: the first state's function over the local adapters, with the example objects stored.
    const input = withLocalDefaults(await example());
    const store = new MemoryObjectStore();
    await seedExampleObjects(store, input);
    const expected = await validateAndPlan(
      { runId: RUN_ID, input },
      {
        store,
        artifactsBucket: LOCAL_ARTIFACTS_BUCKET,
        allowFileUris: true,
        instanceQuotas: new LocalInstanceQuotas(),
        logger: silentLogger,
      },
    );

    // Act
    const { outcome, stdout } = await plan(EXAMPLE, '--json');

    // Assert
    expect(outcome.exitCode).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ plan: expected });
  });

  it('creates nothing: no file in the store or the runs folder, no model server', async () => {
    // Act
    const { outcome } = await plan(EXAMPLE);

    // Assert: the example objects were written in memory only.
    expect(await readdir(sandbox.dir())).toEqual([]);
    expect(outcome.serverPids).toEqual([]);
  });

  it('refuses an invalid input with exit code 2 and the issue lines a run prints', async () => {
    // Prepare
    const path = await inputFile({ ...(await example()), sla: { p95LatencyMs: -3 } });

    // Act
    const planned = await plan(path);

    // Assert
    const ran = await run(path);
    expect([planned.outcome.exitCode, planned.stdout, planned.stderr]).toEqual([
      2,
      '',
      'Invalid run input in input.json:\n  - sla.p95LatencyMs: got -3, expected a number above 0\n',
    ]);
    expect([ran.outcome.exitCode, ran.stderr]).toEqual([planned.outcome.exitCode, planned.stderr]);
  });

  it('fails on an async-inference input, naming the command that plans it', async () => {
    // Prepare
    const asyncExample = fileURLToPath(new URL('../../../examples/local-async.json', import.meta.url));
    const path = await inputFile(JSON.parse(await readFile(asyncExample, 'utf8')));

    // Act
    const planned = await plan(path);

    // Assert
    expect([planned.outcome.exitCode, planned.stdout, planned.stderr]).toEqual([
      2,
      '',
      'Invalid run input in input.json:\n  - (input): got an async-inference run input, expected an optimization ' +
        'run input; run or plan an async input with npm run start:async -- --input FILE [--plan]\n',
    ]);
  });

  it('refuses a run over maxCostUsd with exit code 2 and the message a run prints', async () => {
    // Prepare
    const path = await inputFile({ ...(await example()), maxCostUsd: 0.01 });

    // Act
    const planned = await plan(path);

    // Assert
    const ran = await run(path);
    expect([planned.outcome.exitCode, planned.stderr]).toEqual([
      2,
      "The run's estimated cost $0.17 exceeds maxCostUsd $0.01 (c5-large $0.07, c5-large-neo $0.05, c5-xlarge-neo-2w $0.05; load generator $0.00). Raise maxCostUsd, or shorten the load plan or remove candidates. Nothing was created.\n",
    ]);
    expect([ran.outcome.exitCode, ran.stderr]).toEqual([planned.outcome.exitCode, planned.stderr]);
  });

  it('refuses --json without --plan as a wrong command line', async () => {
    // Prepare
    const { io, stderr } = capture();

    // Act
    const outcome = await runCli(['--json', '--input', EXAMPLE], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toMatch(
      /^--json: expected only with --plan \(it prints the plan as JSON\); a run prints its summary\n\nUsage:/,
    );
  });
});
