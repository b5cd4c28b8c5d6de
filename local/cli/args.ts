import { parseArgs } from 'node:util';

export interface CliArguments {
  readonly help: boolean;
  readonly inputPath?: string;
  readonly runId?: string;
  readonly storeDir: string;
  readonly runsDir: string;
  readonly verbose: boolean;
  /** Print the plan and exit: the first state's validation and planning, nothing created. */
  readonly plan: boolean;
  /** With `plan`: the plan as JSON on stdout. */
  readonly json: boolean;
}

/** A wrong command line: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const USAGE = `Usage: npm start -- [--input FILE] [options]
       npx tsx local/cli.ts --input FILE [options]

Runs the optimization workflow locally: the same state machine definition that is deployed to
AWS, over local adapters. Every candidate becomes an ONNX Runtime model server on this machine,
load tested over loopback HTTP; nothing is downloaded and no AWS account is needed.

Options:
  -i, --input FILE   run input (JSON, the same schema as on AWS). npm start uses examples/local.json
      --run-id ID    run id (letters, digits, - and _; at most 80). Default: local-<date>-<time>
      --store DIR    folder of the local buckets (s3://bucket/key → DIR/bucket/key). Default: .local-store
      --runs DIR     folder of the runs: reports land in DIR/<run id>/. Default: runs
  -v, --verbose      also print every step's log lines
      --plan         print what the run would do and cost, or why it would be refused, then exit:
                     the first state's own checks and plan; nothing is created (npm run plan)
      --json         with --plan: print the plan as JSON on stdout (and nothing else there)
  -h, --help         print this help

Local mode:
  - model.artifactUri and payload.uri may be file:///absolute/path URIs (your own files), or
    s3://local-artifacts/... URIs, stored under the --store folder. examples/local.json uses the
    generated example model at s3://local-artifacts/models/example-cnn/, written on first use.
  - An instance type becomes the model server's CPU budget: its vCPUs as ONNX Runtime threads,
    capped to this machine's cores. SAGEMAKER_MODEL_SERVER_WORKERS, MODEL_SERVER_INTRA_OP_THREADS
    (or OMP_NUM_THREADS) and MODEL_SERVER_MAX_BATCH_SIZE in a candidate's environment are honoured.
  - Compilation targets are compiled with ONNX Runtime offline graph optimization for this CPU.
  - model.image is ignored (it defaults to "local"): the project's model server serves every model.

Exit codes: 0 a recommendation, every candidate judged (--plan: the run would start), 1 the run
failed, 2 invalid command line or input (--plan: the run would be refused), 3 no candidate met the
SLA, 4 every candidate failed, 5 partial (a recommendation, but some candidates could not be
judged), 7 the proof at the target TPS did not hold (before 0 and 5), 130 interrupted (Ctrl-C,
SIGINT), 143 terminated (SIGTERM).`;

export function parseCliArguments(argv: readonly string[]): CliArguments {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        input: { type: 'string', short: 'i' },
        'run-id': { type: 'string' },
        store: { type: 'string', default: '.local-store' },
        runs: { type: 'string', default: 'runs' },
        verbose: { type: 'boolean', short: 'v', default: false },
        plan: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  if (!values.help && values.input === undefined) {
    throw new UsageError('Missing --input FILE: expected the path of a run input (e.g. examples/local.json)');
  }
  // `resolve(cwd, '')` is the working directory itself: a run would write its folders there.
  for (const [flag, value] of [
    ['--input', values.input],
    ['--store', values.store],
    ['--runs', values.runs],
  ] as const) {
    if (value === '') throw new UsageError(`${flag}: got "", expected a path`);
  }
  if (values.json && !values.plan) {
    throw new UsageError(
      '--json: expected only with --plan (it prints the plan as JSON); a run prints its summary',
    );
  }
  return {
    help: values.help,
    ...(values.input === undefined ? {} : { inputPath: values.input }),
    ...(values['run-id'] === undefined ? {} : { runId: values['run-id'] }),
    storeDir: values.store,
    runsDir: values.runs,
    verbose: values.verbose,
    plan: values.plan,
    json: values.json,
  };
}
