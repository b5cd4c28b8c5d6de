import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  describeGiven,
  withArtifactsBucket,
  describeError,
  type InputIssue,
  InvalidRunInputError,
  recordOf,
  type RunWorkflow,
  RunWorkflows,
} from '../core/contracts/index.js';
import { checkRunRequest } from '../core/run-status/index.js';
import { regionOfApiUrl } from './sigv4.js';

/**
 * `npm run -s runs -- init`: a run input for this stack, ready to paste in the Step Functions
 * console, to POST, or to pass to `runs plan|start --input`. It is an example of examples/ with
 * the placeholder bucket (`s3://your-artifacts-bucket/…`) replaced by the stack's artifacts bucket,
 * taken from `--bucket` or from the outputs `npm run deploy` writes (cdk-outputs.json), and it is
 * checked as the run API checks a body before it starts a run (run-request.ts): the workflow's
 * schema and, for an optimization run, the first state's rules that need no AWS read. Whether the
 * objects it names exist is the first state's check (and `runs plan`'s): the objects are listed.
 */

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
const SCHEMAS_DIR = join(REPO_ROOT, 'schemas');

/** The stack's output naming its artifacts bucket (infra/stacks/serving-optimizer-stack.ts). */
export const ARTIFACTS_BUCKET_OUTPUT = 'ArtifactsBucketName';
/** The run API's output (infra/constructs/run-api.ts, construct id `RunApi` + `Url`). */
export const RUN_API_URL_OUTPUT = 'RunApiUrl';
/** What `npm run deploy` writes (`cdk deploy --outputs-file`): `{ "<stack>": { "<output>": "<value>" } }`. */
export const CDK_OUTPUTS_FILE = 'cdk-outputs.json';
export const DEFAULT_AWS_EXAMPLE = 'cpu-sweep';

/** A refusal of `init`'s options or files: a usage error (exit 2), nothing written. */
export class InitRefusedError extends Error {
  override readonly name = 'InitRefusedError';
}

export const BUCKET_NAME_EXPECTED =
  'an S3 bucket name: 3–63 of a-z 0-9 . -, starting and ending with a letter or digit, no "..", not an IP address';

/**
 * General purpose bucket naming rules (Amazon S3 User Guide, "General purpose bucket naming rules",
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html): 3–63 characters of
 * lower-case letters, digits, dots and hyphens, beginning and ending with a letter or digit, no two
 * adjacent periods, not formatted as an IP address, and none of the reserved prefixes and suffixes.
 */
export function describeInvalidBucketName(name: string): string | undefined {
  const valid =
    /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) &&
    !name.includes('..') &&
    !/^\d{1,3}(\.\d{1,3}){3}$/.test(name) &&
    !/^(xn--|sthree-|amzn-s3-demo-)/.test(name) &&
    !/(-s3alias|--ol-s3|\.mrap|--x-s3|--table-s3)$/.test(name);
  return valid ? undefined : `got ${describeGiven(name)}, expected ${BUCKET_NAME_EXPECTED}`;
}

/** The stack outputs file's bucket (and the run API's region, when it names the API). */
export interface StackOutputs {
  readonly stackName: string;
  readonly bucket: string;
  readonly apiUrl?: string;
}

/** Reads cdk-outputs.json: the one stack with an `ArtifactsBucketName` output. */
export function stackOutputsOf(document: unknown, source: string): StackOutputs {
  const stacks = Object.entries(recordOf(document) ?? {}).flatMap(([stackName, outputs]) => {
    const record = recordOf(outputs);
    const bucket = record?.[ARTIFACTS_BUCKET_OUTPUT];
    if (typeof bucket !== 'string') return [];
    const apiUrl = record?.[RUN_API_URL_OUTPUT];
    return [{ stackName, bucket, ...(typeof apiUrl === 'string' ? { apiUrl } : {}) }];
  });
  const [only, ...others] = stacks;
  if (only === undefined) {
    throw new InitRefusedError(
      `${source}: got no stack with an ${ARTIFACTS_BUCKET_OUTPUT} output, expected the outputs \`npm run deploy\` ` +
        'writes (deploy the stack again, or pass --bucket <name>)',
    );
  }
  if (others.length > 0) {
    throw new InitRefusedError(
      `${source}: got ${stacks.length} stacks with an ${ARTIFACTS_BUCKET_OUTPUT} output ` +
        `(${stacks.map(({ stackName, bucket }) => `${stackName}: ${bucket}`).join(', ')}), expected one: ` +
        'pass --bucket <name> to choose',
    );
  }
  return only;
}

/** The examples `init` offers: those for AWS (local.json and the `local-` ones name local files and settings). */
export function awsExamples(): string[] {
  return readdirSync(EXAMPLES_DIR)
    .filter((name) => name.endsWith('.json') && name !== 'local.json' && !name.startsWith('local-'))
    .map((name) => name.slice(0, -'.json'.length))
    .sort();
}

export interface InitOptions {
  readonly example?: string;
  readonly bucket?: string;
  /** An outputs file named by `--outputs`; else cdk-outputs.json in `cwd`, when it exists. */
  readonly outputsFile?: string;
  /** The file to write; else the input goes to stdout. */
  readonly out?: string;
  /** The stack's region, for the first state's region rules (Neo targets, serving images). */
  readonly region?: string;
  /** Used when neither `region` nor the outputs' run API URL tells the region (AWS_REGION). */
  readonly fallbackRegion?: string;
  readonly cwd: string;
  readonly readFile: (path: string) => Promise<string>;
  readonly fileExists: (path: string) => Promise<boolean>;
}

export interface InitResult {
  readonly workflow: RunWorkflow;
  readonly example: string;
  readonly bucket: string;
  /** Where the bucket came from: `--bucket` or the outputs file. */
  readonly bucketSource: string;
  /** The region the first state's rules were checked for, when one was known. */
  readonly region?: string;
  readonly apiUrl?: string;
  /** The input as JSON text (2-space indented, a final newline). */
  readonly text: string;
  /** The objects (and prefixes) in the bucket the input names: they must exist before the run starts. */
  readonly objects: readonly string[];
}

export async function initRunInput(options: InitOptions): Promise<InitResult> {
  const example = exampleName(options.example);
  const { bucket, bucketSource, apiUrl } = await bucketOf(options);
  const examplePath = join(EXAMPLES_DIR, `${example}.json`);
  const document = JSON.parse(await options.readFile(examplePath)) as unknown;
  const record = recordOf(document) ?? {};
  const schemaFile = typeof record.$schema === 'string' ? record.$schema.split('/').pop() : undefined;
  const workflow =
    schemaFile === 'async-run-input.schema.json' ? RunWorkflows.asyncInference : RunWorkflows.optimization;
  const input = withArtifactsBucket(document, bucket);
  const region =
    options.region ??
    (apiUrl === undefined ? undefined : regionOfApiUrl(new URL(apiUrl))) ??
    options.fallbackRegion;
  // The run API's own check of a body (run-request.ts), so what it accepts here it accepts there.
  const checked = checkRunRequest(
    {
      workflow,
      body: JSON.stringify({ input }),
      contentType: 'application/json',
      requestId: 'init',
      stageUrl: 'https://init.invalid/v1',
    },
    region === undefined ? {} : { servingRegion: region },
  );
  if ('refusal' in checked) {
    // E.g. a Neo target or an image the stack's region does not offer: the example does not fit it.
    throw new InvalidRunInputError((checked.refusal.body as { issues?: readonly InputIssue[] }).issues ?? []);
  }
  const out = options.out === undefined ? undefined : resolve(options.cwd, options.out);
  if (out !== undefined && (await options.fileExists(out))) {
    throw new InitRefusedError(
      `--out ${options.out}: the file exists, expected a new file (init never overwrites an input you may have edited)`,
    );
  }
  const schemaPath = schemaFile === undefined ? undefined : join(SCHEMAS_DIR, schemaFile);
  const withSchema =
    schemaPath === undefined
      ? input
      : {
          ...(input as Record<string, unknown>),
          $schema: schemaLink(out ?? join(options.cwd, 'input.json'), schemaPath),
        };
  return {
    workflow,
    example,
    bucket,
    bucketSource,
    ...(region === undefined ? {} : { region }),
    ...(apiUrl === undefined ? {} : { apiUrl }),
    text: `${JSON.stringify(withSchema, null, 2)}\n`,
    objects: objectsIn(input, bucket),
  };
}

function exampleName(given: string | undefined): string {
  const name = (given ?? DEFAULT_AWS_EXAMPLE).replace(/^examples\//, '').replace(/\.json$/, '');
  const offered = awsExamples();
  if (!offered.includes(name)) {
    throw new InitRefusedError(
      `--example: got ${describeGiven(given)}, expected one of ${offered.join(', ')} (the examples for AWS)`,
    );
  }
  return name;
}

async function bucketOf(
  options: InitOptions,
): Promise<{ readonly bucket: string; readonly bucketSource: string; readonly apiUrl?: string }> {
  if (options.bucket !== undefined) {
    const problem = describeInvalidBucketName(options.bucket);
    if (problem !== undefined) throw new InitRefusedError(`--bucket: ${problem}`);
    return { bucket: options.bucket, bucketSource: '--bucket' };
  }
  const path = resolve(options.cwd, options.outputsFile ?? CDK_OUTPUTS_FILE);
  const shown = options.outputsFile ?? CDK_OUTPUTS_FILE;
  if (!(await options.fileExists(path))) {
    throw new InitRefusedError(
      `got no --bucket and no ${shown}, expected one of them: \`npm run deploy\` writes ${CDK_OUTPUTS_FILE} ` +
        `with the stack's ${ARTIFACTS_BUCKET_OUTPUT}, or pass --bucket <name> (the ${ARTIFACTS_BUCKET_OUTPUT} output)`,
    );
  }
  let document: unknown;
  try {
    document = JSON.parse(await options.readFile(path));
  } catch (error) {
    throw new InitRefusedError(
      `${shown}: cannot read it as JSON (${describeError(error)}), expected the outputs of \`npm run deploy\``,
    );
  }
  const outputs = stackOutputsOf(document, shown);
  const problem = describeInvalidBucketName(outputs.bucket);
  if (problem !== undefined)
    throw new InitRefusedError(`${shown} ${outputs.stackName}.${ARTIFACTS_BUCKET_OUTPUT}: ${problem}`);
  return {
    bucket: outputs.bucket,
    bucketSource: `${shown} (stack ${outputs.stackName})`,
    ...(outputs.apiUrl === undefined ? {} : { apiUrl: outputs.apiUrl }),
  };
}

function objectsIn(value: unknown, bucket: string): string[] {
  const prefix = `s3://${bucket}/`;
  if (typeof value === 'string') return value.startsWith(prefix) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((item) => objectsIn(item, bucket));
  const record = recordOf(value);
  return record === undefined ? [] : Object.values(record).flatMap((item) => objectsIn(item, bucket));
}

/** `$schema` relative to the written file, so an editor still finds the schema. */
function schemaLink(file: string, schema: string): string {
  const link = relative(dirname(file), schema).split(sep).join('/');
  return link.startsWith('.') ? link : `./${link}`;
}
