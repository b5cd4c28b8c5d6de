import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import {
  describeError,
  ErrorNames,
  EXIT_CODES,
  exitCodeOfRun,
  describeInvalidRunId,
  type ExecutionStatus,
  ExecutionStatuses,
  isPlainFileName,
  REPORT_FILE_NAME_EXPECTED,
  type RunEvent,
  type RunStatus,
  type RunWorkflow,
  RunWorkflows,
} from '../core/contracts/index.js';
import type { RunPlan } from '../core/contracts/index.js';
import {
  formatAsyncPlan,
  type PlannedAsyncRunSummary,
  formatPlan,
  compareRuns,
  DEFAULT_NOISE_TOLERANCE_PERCENT,
  exitCodeOfComparison,
  parseReportForComparison,
  parseTolerancePercent,
  TOLERANCE_EXPECTED,
  renderComparisonMarkdown,
  renderComparisonText,
} from '../core/report/index.js';
import type { Report } from '../core/report/index.js';
import { InitRefusedError, initRunInput } from './init-command.js';
import { describeInvalidApiUrl, RunApiClient, type RunApiClientOptions } from './run-api-client.js';
import { writeApiRunsIndex } from './runs-index-command.js';
import { AWS_REGION_EXPECTED, isAwsRegion, regionOfApiUrl } from './sigv4.js';

/**
 * `npm run -s runs -- <command> …`: the runs of the deployed optimizer, through its IAM-authenticated
 * run API. Results go to stdout: lines for a person, or with `--json` one JSON document and nothing
 * else, so `… --json | jq` works; progress and errors go to stderr. `-s` keeps npm's own banner
 * (`> model-serving-optimizer@… runs`) off stdout.
 */

const PROGRAM = 'npm run -s runs --';

const GLOBAL_HELP = `  --api <url>        the stack's RunApiUrl output (or set RUN_API_URL)
  --region <region>  default: from the URL, else AWS_REGION
  --json             print one JSON document on stdout, nothing else
  -h, --help         this command's help`;

const WORKFLOW_HELP = `  --workflow <name>  optimization (default) or async (the async-inference workflow); --async for short`;

/** Each command: its options (beside the global ones), its positional run id, its help. */
const COMMANDS = {
  plan: {
    summary: 'what a run would do and cost, with every AWS-side check; nothing is created',
    usage: `${PROGRAM} plan --input <file.json> [--run-id <id>] [--workflow optimization|async]`,
    options: ['input', 'run-id', 'workflow', 'async'],
    runId: false,
    help: `  --input <file>         a run input, e.g. examples/cpu-sweep.json
  --run-id <id>          plan under this run id (the resource names derive from it)
${WORKFLOW_HELP}`,
  },
  start: {
    summary: 'start a run from an input file; --wait follows it to the end',
    usage: `${PROGRAM} start --input <file.json> [--run-id <id>] [--workflow optimization|async] [--wait]
                     [--poll-seconds <n>] [--timeout-seconds <n>]`,
    options: ['input', 'run-id', 'workflow', 'async', 'wait', 'poll-seconds', 'timeout-seconds'],
    runId: false,
    help: `  --input <file>         a run input, e.g. examples/cpu-sweep.json (validated locally before it is sent)
  --run-id <id>          the execution name (1–80 of A-Z a-z 0-9 - _); retrying with the same id starts no second run
${WORKFLOW_HELP}
  --wait                 poll until the run ends; the exit code tells its outcome
  --poll-seconds <n>     between polls (default 30)
  --timeout-seconds <n>  give up waiting after this long (default 86400); the run goes on`,
  },
  status: {
    summary: "a run's status, progress and report location",
    usage: `${PROGRAM} status <run id> [--workflow optimization|async]`,
    options: ['workflow', 'async'],
    runId: true,
    help: WORKFLOW_HELP,
  },
  list: {
    summary: "a workflow's runs, newest first",
    usage: `${PROGRAM} list [--status <status>] [--workflow optimization|async] [--since <date>] [--limit <n>]`,
    options: ['status', 'workflow', 'async', 'since', 'limit'],
    runId: false,
    help: `  --status <status>  RUNNING, SUCCEEDED, FAILED, TIMED_OUT or ABORTED
${WORKFLOW_HELP}
  --since <date>     runs started at or after this ISO 8601 date (2026-11-24, 2026-11-24T08:00:00Z)
  --limit <n>        at most this many (1–1000, default 50)`,
  },
  stop: {
    summary: 'stop a running run (it ends ABORTED and is cleaned up)',
    usage: `${PROGRAM} stop <run id> [--workflow optimization|async]`,
    options: ['workflow', 'async'],
    runId: true,
    help: WORKFLOW_HELP,
  },
  logs: {
    summary: "a run's progress events (its execution history), one line each",
    usage: `${PROGRAM} logs <run id> [--workflow optimization|async] [--limit <n>]`,
    options: ['workflow', 'async', 'limit'],
    runId: true,
    help: `${WORKFLOW_HELP}
  --limit <n>        the newest n events (1–1000, default 200)`,
  },
  report: {
    summary: "download a run's report files (or print links to them)",
    usage: `${PROGRAM} report <run id> [--out <folder>] [--links] [--workflow optimization|async]`,
    options: ['out', 'links', 'workflow', 'async'],
    runId: true,
    help: `  --out <folder>     where to save them (default runs/<run id>, as npm start does)
  --links            print presigned links (valid 15 minutes) instead of downloading
${WORKFLOW_HELP}`,
  },
  compare: {
    summary: "two runs side by side: each candidate's TPS, p95 and cost per 1M, changed beyond noise or not",
    usage: `${PROGRAM} compare <base run id> <new run id> [--markdown] [--tolerance <percent>]`,
    options: ['markdown', 'tolerance'],
    runId: true,
    runIds: 2,
    help: `  --markdown             print a Markdown table (to paste in a pull request or an issue)
  --tolerance <percent>  the noise allowed for figures measured once in both runs (default ${DEFAULT_NOISE_TOLERANCE_PERCENT})
  (both runs' report.json are downloaded through their report links and compared here; exit 6
  when the base run's recommended candidate regressed beyond noise: see "Comparing runs" in docs/local-runs.md)`,
  },
  index: {
    summary: "the runs index (index.html): each run's outcome, winner, cost and SLA, linked to its report",
    usage: `${PROGRAM} index [--out <folder>] [--workflow optimization|async] [--since <date>] [--limit <n>]`,
    options: ['out', 'workflow', 'async', 'since', 'limit'],
    runId: false,
    help: `  --out <folder>     where to write index.html and index.json, each run's report files in <folder>/<run id>/
                     (default runs, as npm start does)
  --workflow <name>  only optimization or async runs (default: both)
  --since <date>     runs started at or after this ISO 8601 date
  --limit <n>        at most this many runs per workflow (1–1000, default 50)`,
  },
  init: {
    summary: 'a run input for this stack: an example naming its artifacts bucket, checked as the API would',
    usage: `${PROGRAM} init [--example <name>] [--bucket <name> | --outputs <file>] [--out <file.json>] [--region <region>]`,
    options: ['example', 'bucket', 'outputs', 'out'],
    runId: false,
    help: `  --example <name>   one of examples/ for AWS, e.g. cpu-sweep (default), gpu-vs-inferentia, async-batch
  --bucket <name>    the stack's ArtifactsBucketName output
  --outputs <file>   the outputs npm run deploy writes (default cdk-outputs.json), read when --bucket is not given
  --out <file.json>  write the input there (never over an existing file); default: print it on stdout
  (--region, or the run API's region in the outputs file, checks the example against that region's
  Neo targets and serving images; no --api is needed)`,
  },
} as const satisfies Record<string, CommandSpec>;

interface CommandSpec {
  readonly summary: string;
  readonly usage: string;
  readonly options: readonly OptionName[];
  readonly runId: boolean;
  /** How many run ids it takes, when more than one. */
  readonly runIds?: number;
  readonly help: string;
}

type CommandName = keyof typeof COMMANDS;

const OPTIONS = {
  api: { type: 'string' },
  region: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  input: { type: 'string' },
  'run-id': { type: 'string' },
  workflow: { type: 'string' },
  async: { type: 'boolean' },
  wait: { type: 'boolean' },
  'poll-seconds': { type: 'string' },
  'timeout-seconds': { type: 'string' },
  status: { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string' },
  out: { type: 'string' },
  links: { type: 'boolean' },
  markdown: { type: 'boolean' },
  tolerance: { type: 'string' },
  example: { type: 'string' },
  bucket: { type: 'string' },
  outputs: { type: 'string' },
} as const;
type OptionName = keyof typeof OPTIONS;
const GLOBAL_OPTIONS: readonly OptionName[] = ['api', 'region', 'json', 'help', 'version'];

const EXIT_CODES_HELP = `Exit codes (start --wait, status): 0 recommended / every input completed (or still running),
1 the run or the call failed, 2 bad input or usage, 3 no candidate met the SLA, 4 every candidate
(or input) failed, 5 partial (a recommendation, but some candidates or inputs failed), 7 the
proof at the target TPS did not hold (before 0 and 5). plan: 0 the
run would start, 2 it would be refused (its input, or over maxCostUsd). compare: 6 when the new run
regressed. Other commands: 0 done, 1 the call failed, 2 usage.`;

export const USAGE = `Runs of the deployed optimizer, through its IAM-authenticated run API (requests are SigV4-signed
with your AWS credentials: AWS_PROFILE, SSO, environment variables or an instance role; the caller
needs execute-api:Invoke on the API).

Usage: ${PROGRAM} <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, spec]) => `  ${name.padEnd(8)} ${spec.summary}`)
  .join('\n')}

Options of every command:
${GLOBAL_HELP}
  --version          the program's version

\`${PROGRAM} <command> --help\` shows a command's options.

${EXIT_CODES_HELP}`;

/** One command's help: its usage line and options, then the global options. */
export function commandUsage(command: CommandName): string {
  const spec = COMMANDS[command];
  return `${spec.summary[0]?.toUpperCase()}${spec.summary.slice(1)}.

Usage: ${spec.usage}

${spec.help}
${GLOBAL_HELP}`;
}

/** The package's version, for `--version`. */
export function programVersion(): string {
  const manifest: unknown = createRequire(import.meta.url)('../package.json');
  const version = (manifest as { version?: unknown }).version;
  return typeof version === 'string' ? version : 'unknown';
}

/** What the program touches, so tests run it without a terminal or real AWS. */
export interface CliIo {
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly createClient: (options: RunApiClientOptions) => RunApiClient;
  readonly readFile: (path: string) => Promise<string>;
  /** Creates the folder (and its parents) and writes the file in it. */
  readonly writeFile: (folder: string, name: string, data: Uint8Array) => Promise<string>;
  /** Downloads a presigned link (no signing: the link carries its signature). */
  readonly fetch: typeof fetch;
  /** Where relative paths start (`init` reads cdk-outputs.json there). @default process.cwd() */
  readonly cwd?: string;
}

export const processIo: CliIo = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  createClient: (options) => new RunApiClient(options),
  readFile: (path) => readFile(path, 'utf8'),
  writeFile: async (folder, name, data) => {
    const path = join(folder, name);
    // The API's contract allows plain names only; a path that leaves the folder is refused all the same.
    if (!isPlainFileName(name) || !resolve(path).startsWith(`${resolve(folder)}${sep}`)) {
      throw new Error(`Report file name ${JSON.stringify(name)}: expected ${REPORT_FILE_NAME_EXPECTED}`);
    }
    await mkdir(folder, { recursive: true });
    await writeFile(path, data);
    return path;
  },
  fetch: (input, init) => globalThis.fetch(input, init),
};

/**
 * The project's one exit-code scheme (core/contracts/exit-codes.ts): the call itself gives
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

class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: CommandName,
  ) {
    super(message);
  }
}

type Values = Partial<Record<OptionName, string | boolean>>;

interface Parsed {
  readonly command: CommandName | undefined;
  readonly values: Values;
  readonly positionals: readonly string[];
}

/**
 * Reads the command line without node's strict mode, whose errors are TypeErrors worded for
 * developers: every option is checked here against the command's own list, and a refusal names the
 * option, what the command accepts and where its help is.
 */
function parseCommandLine(argv: readonly string[]): Parsed {
  const { tokens } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const positionals = tokens.flatMap((token) => (token.kind === 'positional' ? [token.value] : []));
  const [first, ...rest] = positionals;
  const command = first === undefined ? undefined : commandNamed(first);
  const allowed: readonly string[] = [
    ...GLOBAL_OPTIONS,
    ...(command === undefined ? [] : COMMANDS[command].options),
  ];
  const values: Values = {};
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const flag = token.rawName;
    if (!allowed.includes(token.name) || !(token.name in OPTIONS)) {
      const help = command === undefined ? `${PROGRAM} --help` : `${PROGRAM} ${command} --help`;
      throw new UsageError(
        `got the option ${flag}${command === undefined ? '' : ` for "${command}"`}, expected one of ` +
          `${allowed.map((name) => `--${name}`).join(', ')} (see ${help})`,
        command,
      );
    }
    const type = OPTIONS[token.name as OptionName].type;
    if (type === 'string' && token.value === undefined) {
      throw new UsageError(`got ${flag} without a value, expected ${flag} <value>`, command);
    }
    if (type === 'boolean' && token.value !== undefined) {
      throw new UsageError(`got ${flag}=${token.value}, expected ${flag} alone (it takes no value)`, command);
    }
    values[token.name as OptionName] = type === 'string' ? (token.value ?? '') : true;
  }
  return { command, values, positionals: rest };
}

function commandNamed(name: string): CommandName {
  if (Object.hasOwn(COMMANDS, name)) return name as CommandName;
  throw new UsageError(`got the command "${name}", expected one of ${Object.keys(COMMANDS).join(', ')}`);
}

export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    return usageFailure(error, io);
  }
  const { command, values, positionals } = parsed;
  if (values.version === true) {
    io.stdout(values.json === true ? JSON.stringify({ version: programVersion() }) : programVersion());
    return ExitCodes.ok;
  }
  if (values.help === true) {
    io.stdout(command === undefined ? USAGE : commandUsage(command));
    return ExitCodes.ok;
  }
  if (command === undefined) {
    io.stderr(USAGE);
    return ExitCodes.usage;
  }
  try {
    const runId = runIdArgument(command, positionals);
    // Writes a file from the repository's examples: no request, so no API URL is needed.
    if (command === 'init') return await init(values, io);
    const apiUrl = stringValue(values.api) ?? io.env.RUN_API_URL;
    if (apiUrl === undefined) {
      throw new UsageError('got no --api, expected the RunApiUrl output (or RUN_API_URL)', command);
    }
    const urlProblem = describeInvalidApiUrl(apiUrl);
    if (urlProblem !== undefined) {
      throw new UsageError(`${values.api === undefined ? 'RUN_API_URL' : '--api'}: ${urlProblem}`, command);
    }
    const region = regionOf(values, apiUrl, io.env, command);
    const client = io.createClient({ apiUrl, ...(region === undefined ? {} : { region }) });
    const context: Context = { client, values, io, json: values.json === true, workflow: workflowOf(values) };
    switch (command) {
      case 'plan':
        return await plan(context);
      case 'start':
        return await start(context);
      case 'status':
        return await status(context, runId);
      case 'list':
        return await list(context);
      case 'stop':
        return await stop(context, runId);
      case 'logs':
        return await logs(context, runId);
      case 'report':
        return await report(context, runId);
      case 'compare':
        return await compare(context, positionals);
      case 'index':
        return await index(context, apiUrl);
    }
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(error, io);
    if (error instanceof InitRefusedError) return usageFailure(new UsageError(error.message, 'init'), io);
    io.stderr(describeError(error));
    // A run input refused (before sending it, or by the API's checks) is bad input, as for the
    // local CLI; so is a plan over its maxCostUsd, as the local --plan says it.
    return error instanceof Error && REFUSED_INPUT.includes(error.name) ? ExitCodes.usage : ExitCodes.failed;
  }
}

const REFUSED_INPUT: readonly string[] = [ErrorNames.invalidRunInput, ErrorNames.budgetExceeded];

function usageFailure(error: unknown, io: CliIo): number {
  const command = error instanceof UsageError ? error.command : undefined;
  const message = error instanceof UsageError ? error.message : describeError(error);
  io.stderr(`${message}\n\n${command === undefined ? USAGE : commandUsage(command)}`);
  return ExitCodes.usage;
}

interface Context {
  readonly client: RunApiClient;
  readonly values: Values;
  readonly io: CliIo;
  readonly json: boolean;
  readonly workflow: RunWorkflow;
}

function stringValue(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The run id a command takes, exactly one, or none for the others. */
function runIdArgument(command: CommandName, positionals: readonly string[]): string {
  const spec: CommandSpec = COMMANDS[command];
  const wanted = spec.runIds ?? (spec.runId ? 1 : 0);
  if (positionals.length !== wanted) {
    throw new UsageError(
      `got ${positionals.length === 0 ? 'no arguments' : `the arguments ${positionals.join(' ')}`} after ${command}, ` +
        `expected ${wanted === 0 ? 'none (options only)' : wanted === 1 ? 'exactly one run id' : `exactly ${wanted} run ids`}`,
      command,
    );
  }
  for (const runId of positionals) {
    const problem = describeInvalidRunId(runId);
    if (problem !== undefined) throw new UsageError(`run id: ${problem}`, command);
  }
  return positionals[0] ?? '';
}

/**
 * The region requests are signed for: `--region`, else the one in the execute-api URL, else
 * AWS_REGION; checked here, before anything is signed, naming where it came from.
 */
function regionOf(
  values: Values,
  apiUrl: string,
  env: CliIo['env'],
  command: CommandName,
): string | undefined {
  const given = stringValue(values.region);
  const [source, region] =
    given !== undefined
      ? ['--region', given]
      : regionOfApiUrl(new URL(apiUrl)) === undefined && env.AWS_REGION !== undefined
        ? ['AWS_REGION', env.AWS_REGION]
        : [undefined, undefined];
  if (region === undefined) return undefined;
  if (!isAwsRegion(region)) {
    throw new UsageError(
      `${source}: got ${JSON.stringify(region)}, expected ${AWS_REGION_EXPECTED}`,
      command,
    );
  }
  return region;
}

/** `--run-id`, checked before any request: it becomes the execution name. */
function runIdOption(values: Values, command: CommandName): string | undefined {
  const runId = stringValue(values['run-id']);
  const problem = runId === undefined ? undefined : describeInvalidRunId(runId);
  if (problem !== undefined) throw new UsageError(`--run-id: ${problem}`, command);
  return runId;
}

/** The run input file named by `--input`, as JSON: a file that cannot be read is a usage error. */
async function inputDocument(values: Values, io: CliIo, command: CommandName): Promise<unknown> {
  const path = stringValue(values.input);
  if (path === undefined || path === '') {
    throw new UsageError('got no --input, expected a run input JSON file', command);
  }
  let text: string;
  try {
    text = await io.readFile(path);
  } catch (error) {
    throw new UsageError(
      `--input ${path}: cannot read it (${describeError(error)}), expected a run input JSON file`,
      command,
    );
  }
  return parseInputFile(path, text, command);
}

const WORKFLOW_NAMES: Readonly<Record<string, RunWorkflow>> = {
  optimization: RunWorkflows.optimization,
  async: RunWorkflows.asyncInference,
  'async-inference': RunWorkflows.asyncInference,
};

function workflowOf(values: Values): RunWorkflow {
  const named = stringValue(values.workflow);
  if (named === undefined)
    return values.async === true ? RunWorkflows.asyncInference : RunWorkflows.optimization;
  const workflow = WORKFLOW_NAMES[named];
  if (workflow === undefined || (values.async === true && workflow !== RunWorkflows.asyncInference)) {
    throw new UsageError(
      `--workflow: got "${named}"${values.async === true ? ' with --async' : ''}, expected optimization or async`,
    );
  }
  return workflow;
}

/** `plan`: the text the local `--plan` prints (formatPlan), or with --json the API's answer. */
async function plan({ client, values, io, json, workflow }: Context): Promise<number> {
  const input = await inputDocument(values, io, 'plan');
  const inputPath = stringValue(values.input) ?? '';
  const runId = runIdOption(values, 'plan');
  const options = runId === undefined ? {} : { runId };
  const flag = workflow === RunWorkflows.asyncInference ? ' --workflow async' : '';
  const runCommand = `${PROGRAM} start --input ${inputPath}${runId === undefined ? '' : ` --run-id ${runId}`}${flag}`;
  const planned =
    workflow === RunWorkflows.asyncInference
      ? await client.planAsyncRun(input as Parameters<RunApiClient['planAsyncRun']>[0], options)
      : await client.planRun(input as Parameters<RunApiClient['planRun']>[0], options);
  if (json) {
    io.stdout(JSON.stringify(planned, null, 2));
    return ExitCodes.ok;
  }
  // The API answers what the first state planned (RunPlan, or AsyncRunPlan and its items); the
  // client checked the envelope, the state's contract types the rest.
  const text =
    workflow === RunWorkflows.asyncInference
      ? formatAsyncPlan({
          planned: { plan: planned.plan, items: planned.items ?? [] } as unknown as PlannedAsyncRunSummary,
          runCommand,
          displayUri: (uri) => uri,
        })
      : formatPlan({ plan: planned.plan as unknown as RunPlan, runCommand });
  io.stdout(text.trimEnd());
  return ExitCodes.ok;
}

async function start({ client, values, io, json, workflow }: Context): Promise<number> {
  const input = await inputDocument(values, io, 'start');
  const runId = runIdOption(values, 'start');
  const options = runId === undefined ? {} : { runId };
  // Checked before the run starts: a wrong wait setting must not leave a run started unawares.
  for (const flag of ['poll-seconds', 'timeout-seconds'] as const) {
    if (values.wait !== true && values[flag] !== undefined) {
      throw new UsageError(`got --${flag} without --wait, expected it only with --wait`, 'start');
    }
  }
  const pollSeconds = secondsOption('--poll-seconds', stringValue(values['poll-seconds']), 30);
  const timeoutSeconds = secondsOption('--timeout-seconds', stringValue(values['timeout-seconds']), 86_400);
  const started =
    workflow === RunWorkflows.asyncInference
      ? await client.startAsyncRun(input as Parameters<RunApiClient['startAsyncRun']>[0], options)
      : await client.startRun(input as Parameters<RunApiClient['startRun']>[0], options);
  const flag = workflow === RunWorkflows.asyncInference ? ' --workflow async' : '';
  if (values.wait !== true) {
    io.stdout(
      json
        ? JSON.stringify(started, null, 2)
        : `Started run ${started.runId} (${started.executionArn})\nFollow it: ${PROGRAM} status ${started.runId}${flag}`,
    );
    return ExitCodes.ok;
  }
  io.stderr(`Started run ${started.runId} (${started.executionArn})`);
  const final = await client.waitForRun(started.runId, {
    workflow,
    pollSeconds,
    timeoutSeconds,
    onProgress: (current) => {
      io.stderr(progressLine(current));
    },
  });
  // The progress lines on stderr already show the final one; stdout keeps the result alone.
  io.stdout(json ? JSON.stringify(final, null, 2) : progressLine(final));
  return exitCodeOfStatus(final);
}

async function status({ client, io, json, workflow }: Context, runId: string): Promise<number> {
  const current =
    workflow === RunWorkflows.asyncInference ? await client.getAsyncRun(runId) : await client.getRun(runId);
  io.stdout(json ? JSON.stringify(current, null, 2) : progressLine(current));
  return exitCodeOfStatus(current);
}

const LISTABLE: readonly string[] = Object.values(ExecutionStatuses).filter(
  (value) => value !== ExecutionStatuses.pendingRedrive,
);

async function list({ client, values, io, json, workflow }: Context): Promise<number> {
  const statusFilter = stringValue(values.status)?.toUpperCase();
  if (statusFilter !== undefined && !LISTABLE.includes(statusFilter)) {
    throw new UsageError(
      `--status: got "${stringValue(values.status)}", expected one of ${LISTABLE.join(', ')}`,
      'list',
    );
  }
  const sinceText = stringValue(values.since);
  const since = sinceText === undefined ? undefined : new Date(sinceText);
  if (since !== undefined && Number.isNaN(since.getTime())) {
    throw new UsageError(`--since: got "${sinceText}", expected an ISO 8601 date such as 2026-11-24`, 'list');
  }
  const limit = countOption('--limit', stringValue(values.limit), 1000, 'list');
  const runs = await client.listRuns({
    workflow,
    ...(statusFilter === undefined ? {} : { status: statusFilter as ExecutionStatus }),
    ...(since === undefined ? {} : { since }),
    ...(limit === undefined ? {} : { limit }),
  });
  if (json) {
    io.stdout(JSON.stringify(runs, null, 2));
    return ExitCodes.ok;
  }
  if (runs.runs.length === 0) io.stderr(`No ${workflow} runs match.`);
  for (const run of runs.runs) {
    io.stdout([run.runId, run.status, run.startDate, run.stopDate ?? '-'].join('  '));
  }
  if (runs.truncated) io.stderr(`More runs match: narrow --status/--since or raise --limit.`);
  return ExitCodes.ok;
}

async function stop({ client, io, json, workflow }: Context, runId: string): Promise<number> {
  const stopped = await client.stopRun(runId, workflow);
  io.stdout(json ? JSON.stringify(stopped, null, 2) : `Stopped run ${stopped.runId} at ${stopped.stopDate}`);
  return ExitCodes.ok;
}

async function logs({ client, values, io, json, workflow }: Context, runId: string): Promise<number> {
  const limit = countOption('--limit', stringValue(values.limit), 1000, 'logs');
  const events = await client.runEvents(runId, { workflow, ...(limit === undefined ? {} : { limit }) });
  if (json) {
    io.stdout(JSON.stringify(events, null, 2));
    return ExitCodes.ok;
  }
  if (events.truncated) io.stderr(`(older events left out: raise --limit, up to 1000)`);
  for (const event of events.events) io.stdout(formatRunEvent(event));
  return ExitCodes.ok;
}

async function report({ client, values, io, json, workflow }: Context, runId: string): Promise<number> {
  if (values.out === '') throw new UsageError('got --out "", expected a folder', 'report');
  if (values.links === true && values.out !== undefined) {
    throw new UsageError('got --out with --links, expected one of them: --links downloads nothing', 'report');
  }
  const links = await client.reportLinks(runId, workflow);
  if (values.links === true) {
    io.stdout(
      json
        ? JSON.stringify(links, null, 2)
        : [
            `Links valid until ${links.expiresAt}:`,
            ...links.files.map((file) => `${file.name}  ${file.url}`),
          ].join('\n'),
    );
    return ExitCodes.ok;
  }
  const folder = stringValue(values.out) ?? join('runs', runId);
  const saved: { name: string; uri: string; path: string }[] = [];
  for (const file of links.files) {
    const path = await io.writeFile(folder, file.name, await download(io, file));
    saved.push({ name: file.name, uri: file.uri, path });
  }
  io.stdout(
    json
      ? JSON.stringify({ runId, workflow, files: saved }, null, 2)
      : saved.map((file) => file.path).join('\n'),
  );
  return ExitCodes.ok;
}

/** One report file through its presigned link (unsigned: the link carries its signature). */
async function download(io: CliIo, file: { name: string; uri: string; url: string }): Promise<Uint8Array> {
  const response = await io.fetch(file.url, { signal: AbortSignal.timeout(120_000) });
  if (!response.ok) {
    throw new Error(
      `Downloading ${file.name} (${file.uri}) answered ${response.status} ${response.statusText}, expected 200: ` +
        `${(await response.text()).slice(0, 300)}. Print the links with --links to retry by hand.`,
    );
  }
  return new Uint8Array(await response.arrayBuffer());
}

/** A run's report.json, downloaded as `report` does, checked for what the comparison reads. */
async function downloadReport({ client, io }: Context, runId: string): Promise<Report> {
  const links = await client.reportLinks(runId, RunWorkflows.optimization);
  const file = links.files.find(({ name }) => name === 'report.json');
  if (file === undefined) {
    throw new Error(
      `Run ${runId} has no report.json among its report files (got ${links.files.map(({ name }) => name).join(', ') || 'none'}), ` +
        'expected one: compare takes optimization runs that wrote a report',
    );
  }
  const text = new TextDecoder().decode(await download(io, file));
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new Error(`report.json of run ${runId} (${file.uri}) is not JSON: ${describeError(error)}`, {
      cause: error,
    });
  }
  return parseReportForComparison(document, `report.json of run ${runId} (${file.uri})`);
}

/** Compares here the two runs' report.json (compare-runs.ts): no API route of its own. */
async function compare(context: Context, runIds: readonly string[]): Promise<number> {
  const { values, io, json } = context;
  const [baseId = '', nextId = ''] = runIds;
  const tolerance = stringValue(values.tolerance);
  const tolerancePercent =
    tolerance === undefined ? DEFAULT_NOISE_TOLERANCE_PERCENT : parseTolerancePercent(tolerance);
  if (tolerancePercent === undefined) {
    throw new UsageError(`--tolerance: got "${tolerance}", expected ${TOLERANCE_EXPECTED}`, 'compare');
  }
  if (json && values.markdown === true) {
    throw new UsageError(
      'got --json and --markdown, expected one of them (or neither, for the table)',
      'compare',
    );
  }
  const base = await downloadReport(context, baseId);
  const next = await downloadReport(context, nextId);
  const comparison = compareRuns(base, next, { tolerancePercent });
  io.stdout(
    json
      ? JSON.stringify(comparison, null, 2)
      : values.markdown === true
        ? renderComparisonMarkdown(comparison)
        : renderComparisonText(comparison),
  );
  return exitCodeOfComparison(comparison.verdict);
}

/**
 * `index`: the runs index of the deployed stack (client/runs-index-command.ts). Its own command
 * rather than `report` without a run id: `report <run id>` downloads one run, and a forgotten run
 * id must not turn into downloading every run's files.
 */
async function index({ client, values, io, json }: Context, apiUrl: string): Promise<number> {
  if (values.out === '') throw new UsageError('got --out "", expected a folder', 'index');
  const sinceText = stringValue(values.since);
  const since = sinceText === undefined ? undefined : new Date(sinceText);
  if (since !== undefined && Number.isNaN(since.getTime())) {
    throw new UsageError(
      `--since: got "${sinceText}", expected an ISO 8601 date such as 2026-11-24`,
      'index',
    );
  }
  const limit = countOption('--limit', stringValue(values.limit), 1000, 'index');
  const workflows =
    values.workflow === undefined && values.async !== true
      ? [RunWorkflows.optimization, RunWorkflows.asyncInference]
      : [workflowOf(values)];
  const written = await writeApiRunsIndex({
    client,
    workflows,
    out: stringValue(values.out) ?? 'runs',
    ...(limit === undefined ? {} : { limit }),
    ...(since === undefined ? {} : { since }),
    source: apiUrl,
    download: (file) => download(io, file),
    writeFile: io.writeFile,
    progress: (line) => {
      io.stderr(line);
    },
    now: () => new Date(),
  });
  if (written.truncated) io.stderr('More runs match: narrow --since or raise --limit.');
  io.stdout(
    json
      ? JSON.stringify({ html: written.html, json: written.json, runs: written.document.runs }, null, 2)
      : `${written.html} (${written.document.runs.length} run(s))`,
  );
  return ExitCodes.ok;
}

/** `init`: a run input for this stack (client/init-command.ts), on stdout or in `--out`. */
async function init(values: Values, io: CliIo): Promise<number> {
  const out = stringValue(values.out);
  if (out === '') throw new UsageError('got --out "", expected a file name such as my-run.json', 'init');
  const region = stringValue(values.region);
  if (region !== undefined && !isAwsRegion(region)) {
    throw new UsageError(`--region: got ${JSON.stringify(region)}, expected ${AWS_REGION_EXPECTED}`, 'init');
  }
  const envRegion =
    io.env.AWS_REGION !== undefined && isAwsRegion(io.env.AWS_REGION) ? io.env.AWS_REGION : undefined;
  const cwd = io.cwd ?? process.cwd();
  const example = stringValue(values.example);
  const bucket = stringValue(values.bucket);
  const outputsFile = stringValue(values.outputs);
  const fileExists = async (path: string): Promise<boolean> =>
    io.readFile(path).then(
      () => true,
      () => false,
    );
  const result = await initRunInput({
    ...(example === undefined ? {} : { example }),
    ...(bucket === undefined ? {} : { bucket }),
    ...(outputsFile === undefined ? {} : { outputsFile }),
    ...(out === undefined ? {} : { out }),
    ...(region === undefined ? {} : { region }),
    ...(envRegion === undefined ? {} : { fallbackRegion: envRegion }),
    cwd,
    readFile: io.readFile,
    fileExists,
  });
  const written =
    out === undefined
      ? undefined
      : await io.writeFile(dirname(resolve(cwd, out)), basename(out), new TextEncoder().encode(result.text));
  const flag = result.workflow === RunWorkflows.asyncInference ? ' --workflow async' : '';
  io.stderr(
    [
      `examples/${result.example}.json with bucket ${result.bucket} (from ${result.bucketSource}): passes the run API's checks` +
        (result.region === undefined
          ? ' (region rules not checked: give --region)'
          : ` for ${result.region}`),
      ...(result.objects.length === 0
        ? []
        : [
            'Upload what these name before the run starts (its first state checks they exist):',
            ...result.objects.map((uri) => `  ${uri}`),
          ]),
      `Then: ${PROGRAM} plan --input ${written ?? '<file>'}${flag}, or paste it in the Step Functions console`,
    ].join('\n'),
  );
  if (written === undefined) io.stdout(result.text.trimEnd());
  else if (values.json !== true) io.stdout(written);
  else {
    const { text: _text, ...described } = result;
    io.stdout(JSON.stringify({ file: written, ...described }, null, 2));
  }
  return ExitCodes.ok;
}

/** One line per event, e.g. `2026-11-24T10:00:05.000Z #7 TaskStateEntered Deploy candidate`. */
export function formatRunEvent(event: RunEvent): string {
  const parts = [event.timestamp, `#${event.id}`, event.type];
  if (event.state !== undefined) parts.push(event.state);
  if (event.error !== undefined) {
    parts.push(`${event.error}${event.cause === undefined ? '' : `: ${event.cause}`}`);
  }
  return parts.join(' ');
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
  if (status.proof !== undefined) parts.push(`proof at the target: ${status.proof}`);
  if (status.comparison !== undefined) parts.push(`comparison: ${status.comparison}`);
  if (status.report !== undefined) parts.push(`report: ${status.report.html ?? status.report.json}`);
  return parts.join(' · ');
}

function parseInputFile(path: string, text: string, command: CommandName = 'start'): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `--input ${path}: got text that is not JSON (${describeError(error)}), expected a run input`,
      command,
    );
  }
}

function secondsOption(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`${flag}: got "${value}", expected a number of seconds above 0`, 'start');
  }
  return seconds;
}

function countOption(
  flag: string,
  value: string | undefined,
  max: number,
  command: CommandName,
): number | undefined {
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > max) {
    throw new UsageError(`${flag}: got "${value}", expected a whole number from 1 to ${max}`, command);
  }
  return count;
}
