import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { ARTIFACTS_BUCKET_OUTPUT, CDK_OUTPUTS_FILE } from '../../client/init-command.js';
import { isValidRunId } from '../../core/contracts/names.js';
import { type DocCommand, shellWords, simpleCommands } from '../../bench/support/doc-commands.js';

/**
 * What can be checked of a docs command without running it for minutes: the npm script exists and
 * gets its options after `--`; the options pass the CLI's own parser (local/cli/args.ts,
 * local/cli/compare.ts, client/cli-program.ts, each called in-process); the files and runs it names
 * exist in the repository or are made by an earlier command of its block; `--plan` and `--help`
 * command lines, which take a second, are run for real; `npx cdk` gets a CDK command, options and
 * context keys the app reads; `aws` names an operation of the service's API (its SDK client's
 * schema) and options that are members of the operation's input. An AWS-only command gets the same
 * checks where they need no account, and may name the reader's own files and `<placeholders>`.
 * `npm run check:docs` (bench/docs-check.ts) runs the other commands themselves.
 */

export interface BlockState {
  /** Run ids that earlier commands of the block create (`npm start -- --run-id ID`). */
  readonly runIds: Set<string>;
}

export interface CheckContext {
  readonly repoRoot: string;
  readonly scripts: Readonly<Record<string, string>>;
  /** The problems of each `--plan` command line run so far: pages repeat `npm run plan`. */
  readonly plans: Map<string, Promise<string[]>>;
}

export function checkContext(repoRoot: string): CheckContext {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  return { repoRoot, scripts: manifest.scripts ?? {}, plans: new Map() };
}

/** Folders of the repository's own files: a path under one of them must exist. */
const REPO_FOLDERS = ['examples', 'docs', 'schemas', 'bench', 'local', 'client', 'core', 'infra', 'test'];
/** What the runs CLI's requests would go to in a reader's shell: RUN_API_URL is the stack's output. */
const STAND_IN_API_URL = 'https://a1b2c3d4e5.execute-api.us-east-1.amazonaws.com/prod/';
/** The example keys of AWS's SigV4 documentation: requests are signed, never sent. */
const EXAMPLE_CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

interface Run {
  readonly command: DocCommand;
  readonly context: CheckContext;
  readonly state: BlockState;
}

/** Every problem of one docs command, each a sentence; none when it holds. */
export async function checkDocCommand(
  command: DocCommand,
  context: CheckContext,
  state: BlockState,
): Promise<string[]> {
  const run: Run = { command, context, state };
  const problems: string[] = [];
  if (!command.awsOnly) {
    const placeholders = command.words.filter((word) => /<[^>]+>/.test(word));
    if (placeholders.length > 0) {
      problems.push(
        `has the placeholder(s) ${placeholders.join(' ')}: a command a reader runs as written has none; ` +
          'mark it "# AWS only" if it needs the deployed stack',
      );
    }
  }
  for (const simple of simpleCommands(command.words)) {
    const needs = needsAws(context, simple.words);
    if (needs !== undefined && !command.awsOnly) {
      problems.push(`${needs}: mark it "# AWS only" (docs/contributing.md)`);
    }
    problems.push(...(await checkSimpleCommand(run, simple.words)));
  }
  return problems;
}

/** CDK commands that talk to an account (synth and ls need none). */
const CDK_AWS_COMMANDS = new Set(['bootstrap', 'deploy', 'destroy', 'diff', 'watch']);

/** Why a command needs an AWS account, or undefined when it runs offline. */
function needsAws(context: CheckContext, words: readonly string[]): string | undefined {
  const [program, ...args] = words;
  const npmWords = args.filter((arg) => !NPM_FLAGS.has(arg));
  const script =
    program !== 'npm'
      ? undefined
      : npmWords[0] === 'run' || npmWords[0] === 'run-script'
        ? npmWords[1]
        : npmWords[0];
  const definition = script === undefined ? undefined : context.scripts[script];
  const scriptWords = asCdk(
    definition === undefined ? [] : shellWords(definition).words.filter((word) => word !== 'exec'),
  );
  if (program === 'aws') return 'the AWS CLI calls AWS';
  if (program === 'npx' && args[0] === 'cdk' && CDK_AWS_COMMANDS.has(args[1] ?? '')) {
    return `cdk ${args[1] ?? ''} works on an AWS account`;
  }
  if (scriptWords[0] === 'cdk' && CDK_AWS_COMMANDS.has(scriptWords[1] ?? '')) {
    return `npm run ${script ?? ''} runs cdk ${scriptWords[1] ?? ''}, which works on an AWS account`;
  }
  const helpOnly = ['--help', '-h', '--version'].some((flag) => words.includes(flag));
  if (scriptWords.includes('client/cli.ts') && !helpOnly) return 'the runs CLI calls the deployed run API';
  return undefined;
}

async function checkSimpleCommand(run: Run, words: readonly string[]): Promise<string[]> {
  const [program, ...args] = words;
  switch (program) {
    case 'export':
      return args.every((arg) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg))
        ? []
        : [`export: got ${args.join(' ')}, expected NAME=value`];
    case 'npm':
      return checkNpm(run, args);
    case 'npx':
      return checkNpx(run, args);
    case 'aws':
      return checkAwsCli(run, args);
    default:
      return [
        `runs ${program ?? '(nothing)'}, a program these checks cannot read; ` +
          'write it with npm, npx or aws, or teach test/support/doc-command-checks.ts',
      ];
  }
}

/** npm's own options that may come before the command (`npm run -s runs -- …`). */
const NPM_FLAGS = new Set(['-s', '--silent', '-q', '--quiet']);

async function checkNpm(run: Run, args: readonly string[]): Promise<string[]> {
  const words = args.filter((arg) => !NPM_FLAGS.has(arg));
  const [verb, ...rest] = words;
  if (verb === 'ci' || verb === 'install') {
    if (rest.length > 0) return [`npm ${verb}: got ${rest.join(' ')}, expected no arguments`];
    return existsSync(join(run.context.repoRoot, 'package-lock.json'))
      ? []
      : [`npm ${verb}: the repository has no package-lock.json`];
  }
  let script: string | undefined;
  let after: readonly string[];
  if (verb === 'start' || verb === 'test') {
    script = verb;
    after = rest;
  } else if (verb === 'run' || verb === 'run-script') {
    [script, ...after] = rest;
  } else {
    return [`npm ${verb ?? ''}: expected npm ci, npm start, npm test or npm run <script>`];
  }
  if (script === undefined) return ['npm run: names no script'];
  const definition = run.context.scripts[script];
  if (definition === undefined) {
    return [
      `npm script "${script}" does not exist in package.json (its scripts: ${Object.keys(run.context.scripts).join(', ')})`,
    ];
  }
  const [separator, ...extra] = after;
  if (separator !== undefined && separator !== '--') {
    return [
      `npm ${verb} ${script}: ${after.join(' ')} comes before "--", so npm takes it as its own option ` +
        `and the script never sees it; expected npm run ${script} -- ${after.join(' ')}`,
    ];
  }
  return checkScript(run, script, definition, extra);
}

/**
 * A script's words with the project's config check in front of cdk (`tsx infra/bin/cdk.ts …`, which
 * checks the config file, then runs cdk with the same arguments) read as the cdk command it runs.
 */
function asCdk(words: readonly string[]): string[] {
  return words[0] === 'tsx' && words[1] === 'infra/bin/cdk.ts' ? ['cdk', ...words.slice(2)] : [...words];
}

async function checkScript(
  run: Run,
  script: string,
  definition: string,
  extra: readonly string[],
): Promise<string[]> {
  const words = asCdk(shellWords(definition).words.filter((word) => word !== 'exec'));
  const [program] = words;
  if (program === 'cdk') return checkCdk(run, [...words.slice(1), ...extra]);
  if (program === 'node' && words[1] === '--import' && words[2] === 'tsx') {
    const [entry, ...base] = words.slice(3);
    return checkEntry(run, script, entry ?? '', [...base, ...extra]);
  }
  // The test runner, tsc, eslint, prettier: their arguments are theirs (jest's paths and -t).
  return [];
}

async function checkEntry(
  run: Run,
  script: string,
  entry: string,
  argv: readonly string[],
): Promise<string[]> {
  switch (entry) {
    case 'local/cli.ts':
    case 'local/async-cli.ts':
      return checkLocalRun(run, entry, argv);
    case 'local/compare-cli.ts':
      return checkCompare(run, argv);
    case 'local/aws-plan-cli.ts':
      return checkAwsPlan(run, argv);
    case 'client/cli.ts':
      return checkRunsCli(run, argv);
    case 'bench/docs-check.ts':
      return checkDocsCheck(argv);
    case 'bench/run.ts':
    case 'bench/report-render-check.ts':
    case 'local/write-input-schemas.ts':
      return argv.length === 0
        ? []
        : [`npm run ${script}: got ${argv.join(' ')}, expected no arguments (${entry} reads none)`];
    default:
      return [
        `npm run ${script} runs ${entry}, whose options these checks do not know: teach test/support/doc-command-checks.ts`,
      ];
  }
}

async function checkDocsCheck(argv: readonly string[]): Promise<string[]> {
  const { parseArgs } = await import('node:util');
  const { DOCS_CHECK_OPTIONS } = await import('../../bench/support/doc-commands.js');
  try {
    parseArgs({ args: [...argv], options: DOCS_CHECK_OPTIONS, strict: true });
    return [];
  } catch (error) {
    return [
      `npm run check:docs refuses ${argv.join(' ')}: ${error instanceof Error ? error.message : String(error)}`,
    ];
  }
}

/** A path a command names: in the repository, or (AWS only) the reader's own file outside its folders. */
function pathProblem(run: Run, path: string, what: string): string | undefined {
  const relativePath = path.replace(/^file:\/\//, '');
  if (existsSync(join(run.context.repoRoot, relativePath))) return undefined;
  const folder = relativePath.split('/')[0] ?? '';
  if (run.command.awsOnly && !REPO_FOLDERS.includes(folder)) return undefined;
  return (
    `${what} ${path} does not exist in the repository` +
    (run.command.awsOnly
      ? ''
      : '; a command a reader runs as written names an example (examples/) or a file an earlier command makes')
  );
}

async function checkLocalRun(run: Run, entry: string, argv: readonly string[]): Promise<string[]> {
  const { parseCliArguments, UsageError } = await import('../../local/cli/args.js');
  let args;
  try {
    args = parseCliArguments(argv);
  } catch (error) {
    if (error instanceof UsageError)
      return [`${entry} refuses its options (${argv.join(' ')}): ${error.message}`];
    throw error;
  }
  if (args.help) return [];
  const problems: string[] = [];
  const missing = args.inputPath === undefined ? undefined : pathProblem(run, args.inputPath, '--input');
  if (missing !== undefined) problems.push(missing);
  if (args.runId !== undefined && !args.plan) {
    if (isValidRunId(args.runId)) run.state.runIds.add(args.runId);
    else problems.push(`--run-id ${args.runId} is not a valid run id`);
  }
  if (problems.length > 0 || !args.plan || run.command.awsOnly) return problems;
  const key = [entry, ...argv].join(' ');
  const plan = run.context.plans.get(key) ?? runLocalPlan(run, entry, argv, args.json);
  run.context.plans.set(key, plan);
  return plan;
}

/** `--plan` prints the first state's plan and creates nothing: run here, in this process. */
async function runLocalPlan(
  run: Run,
  entry: string,
  argv: readonly string[],
  json: boolean,
): Promise<string[]> {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    cwd: run.context.repoRoot,
  };
  const outcome =
    entry === 'local/cli.ts'
      ? await (await import('../../local/cli/main.js')).runCli(argv, io)
      : await (await import('../../local/cli/async/main.js')).runAsyncCli(argv, io);
  if (outcome.exitCode !== 0) {
    return [
      `${entry} ${argv.join(' ')} exited ${outcome.exitCode}: ${err.join('').trim().split('\n').slice(0, 3).join(' / ')}`,
    ];
  }
  if (json) {
    try {
      JSON.parse(out.join(''));
    } catch {
      return [`${entry} ${argv.join(' ')}: stdout is not one JSON document`];
    }
  }
  return [];
}

/** `npm run plan:aws` plans offline and creates nothing: run here, in this process. */
async function checkAwsPlan(run: Run, argv: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const err: string[] = [];
  const { runAwsPlan } = await import('../../local/cli/aws-plan.js');
  const outcome = await runAwsPlan(argv, {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    cwd: run.context.repoRoot,
  });
  return outcome.exitCode === 0
    ? []
    : [
        `plan:aws ${argv.join(' ')} exited ${outcome.exitCode}: ${err.join('').trim().split('\n').slice(0, 3).join(' / ')}`,
      ];
}

async function checkCompare(run: Run, argv: readonly string[]): Promise<string[]> {
  const { CompareUsageError, parseCompareArguments } = await import('../../local/cli/compare.js');
  let args;
  try {
    args = parseCompareArguments(argv);
  } catch (error) {
    if (error instanceof CompareUsageError)
      return [`compare refuses its arguments (${argv.join(' ')}): ${error.message}`];
    throw error;
  }
  if (args.help) return [];
  return [args.base, args.next].flatMap((argument) => {
    // A run id, a run's folder or its report.json, as local/cli/compare.ts looks them up.
    const runId = argument.replace(new RegExp(`^${args.runsDir}/`), '').replace(/\/(report\.json)?$/, '');
    if (run.state.runIds.has(runId)) return [];
    const problem = pathProblem(run, argument, 'the run');
    return problem === undefined ? [] : [`${problem} and no earlier command of its block makes run ${runId}`];
  });
}

/**
 * The runs CLI (client/cli-program.ts) over a client that stops at the first request: every check
 * the CLI makes before it calls the API (command, options, run ids, URL, region, workflow, input
 * file) runs as for the reader, and nothing is sent.
 */
/** What `npm run deploy` would have written for the reader's stack (client/init-command.ts reads it). */
const STAND_IN_OUTPUTS = {
  ServingOptimizer: { [ARTIFACTS_BUCKET_OUTPUT]: 'example-artifacts-bucket', RunApiUrl: STAND_IN_API_URL },
};

async function checkRunsCli(run: Run, argv: readonly string[]): Promise<string[]> {
  const { runCli } = await import('../../client/cli-program.js');
  const { RunApiClient } = await import('../../client/run-api-client.js');
  const requests: string[] = [];
  const refuse = (input: Parameters<typeof fetch>[0]): Promise<Response> => {
    requests.push(String(input instanceof Request ? input.url : input));
    return Promise.reject(new Error('not sent: the docs check stops at the first request'));
  };
  const err: string[] = [];
  const apiUrl = run.command.env['RUN_API_URL'];
  const asyncWorkflow = argv.includes('--async') || argv.join(' ').includes('--workflow async');
  const exitCode = await runCli(argv, {
    stdout: () => undefined,
    stderr: (line) => err.push(line),
    env: { RUN_API_URL: apiUrl === undefined || apiUrl.includes('<') ? STAND_IN_API_URL : apiUrl },
    // Signed with the SigV4 documentation's example keys, then refused before anything is sent.
    createClient: (options) =>
      new RunApiClient({ ...options, credentials: EXAMPLE_CREDENTIALS, fetch: refuse }),
    readFile: async (path) => {
      // The reader's deployed stack (AWS only): its outputs file stands in with an example bucket.
      if (basename(path) === CDK_OUTPUTS_FILE && !existsSync(path)) return JSON.stringify(STAND_IN_OUTPUTS);
      // `init` reads only examples (and asks whether its --out file exists: it does not, for a reader).
      if (argv[0] === 'init' && !existsSync(resolve(run.context.repoRoot, path))) {
        throw new Error(`${path} does not exist`);
      }
      const problem = pathProblem(run, path, '--input');
      if (problem !== undefined) throw new Error(problem);
      // The reader's own input (AWS only): an example of the same workflow stands in for it.
      const inRepo = existsSync(join(run.context.repoRoot, path));
      const file = inRepo ? path : asyncWorkflow ? 'examples/async-batch.json' : 'examples/cpu-sweep.json';
      return readFile(join(run.context.repoRoot, file), 'utf8');
    },
    // `init --out` writes the reader's input: accepted here, and nothing is written.
    writeFile: (folder, name) =>
      argv[0] === 'init'
        ? Promise.resolve(join(folder, name))
        : Promise.reject(new Error('no file is written by the docs check')),
    fetch: () => Promise.reject(new Error('nothing is downloaded by the docs check')),
  });
  if (exitCode === 0 || requests.length > 0) return [];
  return [
    `runs ${argv.join(' ')} exited ${exitCode} before any request: ${err.join('\n').trim().split('\n')[0] ?? ''}`,
  ];
}

function checkNpx(run: Run, args: readonly string[]): string[] {
  const [tool, ...rest] = args;
  if (tool === 'cdk') return checkCdk(run, rest);
  if (tool === 'tsx') {
    const problem = pathProblem(run, rest[0] ?? '', 'npx tsx:');
    return problem === undefined ? [] : [problem];
  }
  return [`npx ${tool ?? ''}: these checks know npx cdk and npx tsx`];
}

// The CDK CLI's commands and the options the docs may use with them
// (https://docs.aws.amazon.com/cdk/v2/guide/ref-cli-cmd.html).
const CDK_COMMANDS = new Set([
  'bootstrap',
  'synth',
  'synthesize',
  'deploy',
  'destroy',
  'diff',
  'list',
  'ls',
  'watch',
  'doctor',
]);
const CDK_FLAGS = new Set([
  '--all',
  '--no-notices',
  '--require-approval',
  '--force',
  '-f',
  '--profile',
  '--outputs-file',
  '--exclusively',
  '-e',
  '--hotswap',
  '--quiet',
  '-q',
  '--concurrency',
]);
/** Flags above that take a value. */
const CDK_FLAGS_WITH_VALUE = new Set(['--require-approval', '--profile', '--outputs-file', '--concurrency']);

function checkCdk(run: Run, args: readonly string[]): string[] {
  const [verb, ...rest] = args;
  if (verb === undefined || !CDK_COMMANDS.has(verb)) {
    return [`cdk ${verb ?? ''}: expected one of ${[...CDK_COMMANDS].join(', ')}`];
  }
  const { contextKeys, stackName } = cdkAppFacts(run.context.repoRoot);
  const problems: string[] = [];
  for (let index = 0; index < rest.length; index += 1) {
    const word = rest[index] ?? '';
    if (word === '-c' || word === '--context') {
      const key = (rest[index + 1] ?? '').split('=')[0] ?? '';
      if (!contextKeys.includes(key)) {
        problems.push(
          `cdk ${word} ${rest[index + 1] ?? ''}: the app reads the context keys ${contextKeys.join(', ')}, not "${key}"`,
        );
      }
      index += 1;
    } else if (word.startsWith('-')) {
      if (!CDK_FLAGS.has(word)) problems.push(`cdk ${verb}: ${word} is not an option these checks know`);
      if (CDK_FLAGS_WITH_VALUE.has(word)) index += 1;
    } else if (verb !== 'bootstrap' && word !== stackName) {
      problems.push(`cdk ${verb} ${word}: the app's stack is ${stackName}`);
    }
  }
  return problems;
}

/**
 * The CDK context keys the app reads and its stack's default name, from their constants in infra/
 * (read as text: loading aws-cdk-lib would take this suite seconds).
 */
function cdkAppFacts(repoRoot: string): { contextKeys: string[]; stackName: string } {
  const sources = ['infra/serving-optimizer-app.ts', 'infra/optimizer-config.ts'].map((file) =>
    readFileSync(join(repoRoot, file), 'utf8'),
  );
  const constants = sources.flatMap((source) => [...source.matchAll(/export const (\w+) = '([^']+)';/g)]);
  const valueOf = (name: string): string | undefined => constants.find((match) => match[1] === name)?.[2];
  const contextKeys = constants
    .filter((match) => (match[1] ?? '').endsWith('_CONTEXT_KEY'))
    .map((match) => match[2] ?? '');
  return { contextKeys, stackName: valueOf('SERVING_OPTIMIZER_STACK_NAME') ?? '' };
}

/**
 * The AWS CLI's service names of the SDK clients this project installs: an operation exists when
 * the client exports its input schema (`<Operation>Input$`), whose members are the operation's
 * options (`--kebab-case`).
 */
const AWS_CLI_SERVICES: Readonly<Record<string, string>> = {
  'application-autoscaling': '@aws-sdk/client-application-auto-scaling',
  cloudwatch: '@aws-sdk/client-cloudwatch',
  dynamodb: '@aws-sdk/client-dynamodb',
  iam: '@aws-sdk/client-iam',
  lambda: '@aws-sdk/client-lambda',
  s3api: '@aws-sdk/client-s3',
  sagemaker: '@aws-sdk/client-sagemaker',
  'sagemaker-runtime': '@aws-sdk/client-sagemaker-runtime',
  'service-quotas': '@aws-sdk/client-service-quotas',
  sns: '@aws-sdk/client-sns',
  stepfunctions: '@aws-sdk/client-sfn',
};
// `aws s3`'s own commands, not API operations (https://docs.aws.amazon.com/cli/latest/reference/s3/).
const AWS_S3_COMMANDS = new Set(['cp', 'ls', 'mb', 'mv', 'presign', 'rb', 'rm', 'sync', 'website']);
// Options of every AWS CLI command (https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-options.html).
const AWS_GLOBAL_OPTIONS = new Set([
  '--region',
  '--profile',
  '--output',
  '--query',
  '--endpoint-url',
  '--no-cli-pager',
  '--debug',
  '--cli-input-json',
  '--no-paginate',
]);

function pascalCase(kebab: string): string {
  return kebab.replace(/(^|-)([a-z0-9])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());
}

function kebabCase(member: string): string {
  return member.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

function checkAwsCli(run: Run, args: readonly string[]): string[] {
  const [service, operation, ...rest] = args;
  const problems = rest
    .filter((word) => word.startsWith('file://'))
    .flatMap((word) => pathProblem(run, word, 'aws:') ?? []);
  if (service === 's3') {
    return AWS_S3_COMMANDS.has(operation ?? '')
      ? problems
      : [...problems, `aws s3 ${operation ?? ''}: expected one of ${[...AWS_S3_COMMANDS].join(', ')}`];
  }
  const client = AWS_CLI_SERVICES[service ?? ''];
  if (client === undefined) {
    return [
      `aws ${service ?? ''}: expected one of s3, ${Object.keys(AWS_CLI_SERVICES).join(', ')} (the SDK clients installed here)`,
    ];
  }
  const exports = createRequire(join(run.context.repoRoot, 'package.json'))(client) as Record<
    string,
    unknown
  >;
  // A static schema: [kind, namespace, name, traits, member names, member schemas, …].
  const schema = exports[`${pascalCase(operation ?? '')}Input$`];
  const members = Array.isArray(schema) && Array.isArray(schema[4]) ? (schema[4] as string[]) : undefined;
  if (members === undefined)
    return [...problems, `aws ${service} ${operation ?? ''}: ${client} has no such operation`];
  const options = new Set(members.map((member) => `--${kebabCase(member)}`));
  for (const word of rest) {
    if (!word.startsWith('--') || AWS_GLOBAL_OPTIONS.has(word) || options.has(word)) continue;
    problems.push(
      `aws ${service} ${operation ?? ''}: ${word} is not an option (its options: ${[...options].join(', ')})`,
    );
  }
  return problems;
}
