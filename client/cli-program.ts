import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { describeError } from '../handlers/contracts/errors.js';
import { EXIT_CODES, exitCodeOfRun } from '../handlers/contracts/exit-codes.js';
import type { RunStatus } from '../handlers/run-status/run-api-contract.js';
import { RunApiClient, type RunApiClientOptions } from './run-api-client.js';

/**
 * `npm run runs -- …`: start a run through the run API and follow it. Everything the program
 * prints for a machine goes to stdout as JSON (the started run, the status); progress and errors go
 * to stderr, one line each.
 */

export const USAGE = `Start and follow runs through the IAM-authenticated run API (requests are SigV4-signed with your AWS credentials).

Usage:
  npm run runs -- start  --api <url> --input <file.json> [--run-id <id>] [--async] [--wait]
                         [--poll-seconds <n>] [--timeout-seconds <n>] [--region <region>]
  npm run runs -- status --api <url> [--async] [--region <region>] <run id>
  npm run runs -- --help

  --api              the stack's RunApiUrl output (or set RUN_API_URL)
  --input            a run input, e.g. examples/cpu-sweep.json (validated locally before it is sent)
  --run-id           the execution name (1–80 of A-Z a-z 0-9 - _); retrying with the same id starts no second run
  --async            the async-inference workflow (POST/GET /async-runs) instead of the optimization one
  --wait             poll until the run ends; its exit code tells the outcome (below)
  --poll-seconds     between polls (default 30)
  --timeout-seconds  give up waiting after this long (default 86400); the run goes on
  --region           default: from the URL, else AWS_REGION

Exit codes (start --wait, status): 0 recommended / every input completed, 1 the run (or the call)
failed, 2 bad input or usage, 3 no candidate met the SLA, 4 every candidate (or input) failed,
5 partial (a recommendation, but some candidates or inputs failed). A run still going: 0 (status).

Credentials: the AWS SDK's default chain (AWS_PROFILE, SSO, environment variables, instance roles).
The caller needs execute-api:Invoke on the API.`;

/** What the program touches, so tests run it without a terminal or real AWS. */
export interface CliIo {
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly createClient: (options: RunApiClientOptions) => RunApiClient;
  readonly readFile: (path: string) => Promise<string>;
}

export const processIo: CliIo = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  createClient: (options) => new RunApiClient(options),
  readFile: (path) => readFile(path, 'utf8'),
};

/**
 * The project's one exit-code scheme (handlers/contracts/exit-codes.ts): the call itself gives
 * 0, 1 (it failed) or 2 (usage); a run it waited for or read gives its outcome's code.
 */
export const ExitCodes = {
  ok: EXIT_CODES.ok,
  failed: EXIT_CODES.runFailed,
  usage: EXIT_CODES.invalid,
} as const;

/** The exit code of a run as the API describes it: still running is 0, an ended run its outcome's. */
export function exitCodeOfStatus(status: RunStatus): number {
  if (status.status === 'RUNNING' || status.status === 'PENDING_REDRIVE') return ExitCodes.ok;
  return exitCodeOfRun(status);
}

class UsageError extends Error {}

const OPTIONS = {
  api: { type: 'string' },
  input: { type: 'string' },
  'run-id': { type: 'string' },
  async: { type: 'boolean', default: false },
  wait: { type: 'boolean', default: false },
  'poll-seconds': { type: 'string' },
  'timeout-seconds': { type: 'string' },
  region: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.stderr(`${describeError(error)}\n\n${USAGE}`);
    return ExitCodes.usage;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === undefined) {
    io.stdout(USAGE);
    return values.help ? ExitCodes.ok : ExitCodes.usage;
  }
  try {
    const apiUrl = values.api ?? io.env.RUN_API_URL;
    if (apiUrl === undefined)
      throw new UsageError('got no --api, expected the RunApiUrl output (or RUN_API_URL)');
    const client = io.createClient({
      apiUrl,
      ...(values.region === undefined ? {} : { region: values.region }),
    });
    if (command === 'start') return await start(client, values, rest, io);
    if (command === 'status') return await status(client, values.async, rest, io);
    throw new UsageError(`got the command "${command}", expected start or status`);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`${error.message}\n\n${USAGE}`);
      return ExitCodes.usage;
    }
    io.stderr(describeError(error));
    return ExitCodes.failed;
  }
}

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

async function start(
  client: RunApiClient,
  values: Values,
  rest: readonly string[],
  io: CliIo,
): Promise<number> {
  if (rest.length > 0) throw new UsageError(`got unexpected arguments ${rest.join(' ')} after start`);
  if (values.input === undefined) throw new UsageError('got no --input, expected a run input JSON file');
  const input = parseInputFile(values.input, await io.readFile(values.input));
  const runId = values['run-id'];
  const options = runId === undefined ? {} : { runId };
  const started = values.async
    ? await client.startAsyncRun(input as Parameters<RunApiClient['startAsyncRun']>[0], options)
    : await client.startRun(input as Parameters<RunApiClient['startRun']>[0], options);
  io.stdout(JSON.stringify(started, null, 2));
  if (!values.wait) return ExitCodes.ok;
  const final = await client.waitForRun(started.runId, {
    workflow: values.async ? 'async-inference' : 'optimization',
    pollSeconds: secondsOption('--poll-seconds', values['poll-seconds'], 30),
    timeoutSeconds: secondsOption('--timeout-seconds', values['timeout-seconds'], 86_400),
    onProgress: (current) => {
      io.stderr(progressLine(current));
    },
  });
  io.stdout(JSON.stringify(final, null, 2));
  return exitCodeOfStatus(final);
}

async function status(
  client: RunApiClient,
  isAsync: boolean,
  rest: readonly string[],
  io: CliIo,
): Promise<number> {
  const [runId, ...extra] = rest;
  if (runId === undefined || extra.length > 0) {
    throw new UsageError(`got ${rest.length} arguments after status, expected exactly one run id`);
  }
  const current = isAsync ? await client.getAsyncRun(runId) : await client.getRun(runId);
  io.stdout(JSON.stringify(current, null, 2));
  return exitCodeOfStatus(current);
}

/** One line per poll, e.g. `nightly RUNNING · Benchmark each candidate · candidates 1/3 done, 2 running`. */
export function progressLine(status: RunStatus): string {
  const parts = [`${status.runId} ${status.status}`];
  if (status.progress.phase !== undefined) parts.push(status.progress.phase);
  for (const counted of [status.progress.groups, status.progress.items]) {
    if (counted === undefined) continue;
    const done = counted.succeeded + counted.failed;
    const failed = counted.failed > 0 ? ` (${counted.failed} failed)` : '';
    parts.push(`${counted.label} ${done}/${counted.total ?? '?'} done${failed}, ${counted.running} running`);
  }
  if (status.error !== undefined) parts.push(`${status.error}: ${status.cause ?? ''}`.trim());
  if (status.outcome !== undefined) parts.push(`outcome: ${status.outcome}`);
  if (status.report !== undefined) parts.push(`report: ${status.report.html ?? status.report.json}`);
  return parts.join(' · ');
}

function parseInputFile(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `--input ${path}: got text that is not JSON (${describeError(error)}), expected a run input`,
    );
  }
}

function secondsOption(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`${flag}: got "${value}", expected a number of seconds above 0`);
  }
  return seconds;
}
