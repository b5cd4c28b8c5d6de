import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT_CODES } from '../../core/contracts/index.js';

/**
 * Real local runs of the examples for `npm run check:reports`: each example input runs through its
 * CLI (`local/cli.ts` or `local/async-cli.ts`) in a child process, as `npm start` runs it, and the
 * check then opens the report the run wrote. With `short`, each optimization input's load plan is
 * cut down (steps of at most SHORT_STEP_SECONDS, one repeat) so five runs take minutes, not tens
 * of minutes; the report's structure is the same.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ExampleRun {
  /** The check's name for it, and the run id's suffix. */
  readonly name: string;
  readonly example: string;
  readonly workflow: 'optimization' | 'async';
}

/** The examples the README and package.json name: `npm start`'s, sweep, routing, generative, async. */
export const EXAMPLE_RUNS: readonly ExampleRun[] = [
  { name: 'example-local', example: 'examples/local.json', workflow: 'optimization' },
  { name: 'example-local-sweep', example: 'examples/local-sweep.json', workflow: 'optimization' },
  { name: 'example-local-routing', example: 'examples/local-routing.json', workflow: 'optimization' },
  { name: 'example-local-generative', example: 'examples/local-generative.json', workflow: 'optimization' },
  { name: 'example-local-async', example: 'examples/local-async.json', workflow: 'async' },
];

const SHORT_STEP_SECONDS = 2;

/**
 * Exit codes after which the run wrote its report: a recommendation, none met the SLA, every
 * candidate failed, partial, the proof did not hold (core/contracts/exit-codes.ts).
 */
const REPORTED = new Set<number>([
  EXIT_CODES.ok,
  EXIT_CODES.noCandidateMetSla,
  EXIT_CODES.allFailed,
  EXIT_CODES.partial,
  EXIT_CODES.proofNotHeld,
]);

export interface ExampleRunResult {
  readonly run: ExampleRun;
  readonly exitCode: number | null;
  /** report.html of the run, when the run wrote one. */
  readonly reportHtml?: string;
  /** The CLI's output, for a run that did not report. */
  readonly output: string;
}

/** A copy of an optimization input with a shorter load plan; other inputs unchanged. */
export function shortened(input: Record<string, unknown>): Record<string, unknown> {
  const plan = input.loadPlan;
  if (typeof plan !== 'object' || plan === null) return input;
  const loadPlan = { ...(plan as Record<string, unknown>) };
  if (typeof loadPlan.stepDurationSeconds === 'number')
    loadPlan.stepDurationSeconds = Math.min(loadPlan.stepDurationSeconds, SHORT_STEP_SECONDS);
  if (typeof loadPlan.repeats === 'number') loadPlan.repeats = 1;
  return { ...input, loadPlan };
}

/** Runs one example to its end and says where its report.html is. */
export async function runExample(
  run: ExampleRun,
  options: { readonly outDir: string; readonly short: boolean; readonly runId: string },
): Promise<ExampleRunResult> {
  const inputsDir = join(options.outDir, 'inputs');
  const runsDir = join(options.outDir, 'runs');
  await mkdir(inputsDir, { recursive: true });
  const document = JSON.parse(await readFile(join(ROOT, run.example), 'utf8')) as Record<string, unknown>;
  const inputPath = join(inputsDir, `${run.name}.json`);
  await writeFile(inputPath, `${JSON.stringify(options.short ? shortened(document) : document, null, 2)}\n`);
  const cli = run.workflow === 'async' ? 'local/async-cli.ts' : 'local/cli.ts';
  const { exitCode, output } = await runProcess(
    ['--import', 'tsx', cli, '--input', inputPath, '--run-id', options.runId, '--runs', runsDir],
    ROOT,
  );
  const reportHtml =
    run.workflow === 'async'
      ? join(runsDir, options.runId, 'async', 'report.html')
      : join(runsDir, options.runId, 'report.html');
  return {
    run,
    exitCode,
    ...(exitCode !== null && REPORTED.has(exitCode) ? { reportHtml } : {}),
    output,
  };
}

function runProcess(
  args: readonly string[],
  cwd: string,
): Promise<{ exitCode: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('exit', (code) => {
      resolve({ exitCode: code, output });
    });
  });
}
