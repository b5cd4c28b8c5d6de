/**
 * `npm run plan:aws -- --input FILE`: plans an AWS run input offline, as "Validate and plan" plans it
 * on AWS, from the recorded tables (instances, prices, images, Neo support) and the input alone: no
 * account, no credentials, no AWS call, nothing created. What only AWS can answer is skipped and
 * named, so a user prices examples/*.json (or their own input) before deploying.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import {
  BudgetExceededError,
  InvalidRunInputError,
  EXIT_CODES,
  isValidRunId,
  isRecord,
  describeGiven,
  PRICE_TABLE_SOURCE,
} from '../../core/contracts/index.js';
import type { RunPlan } from '../../core/contracts/index.js';
import { RECORDED_PRICE_REGIONS } from '../../core/catalog/index.js';
import type { ObjectStore } from '../../core/ports/index.js';
import { formatPlan } from '../../core/report/index.js';
import { checkedAsyncRunInputSchema } from '../../core/planning/index.js';
import { validateAndPlan } from '../../core/steps/optimization/validate-and-plan.js';
import { defaultRunId, displayPath, printRefusal, readInput } from './shared.js';

export const AWS_PLAN_USAGE = `Usage: npm run plan:aws -- --input FILE [--region REGION] [--bucket NAME] [--run-id ID] [--json]

Plans an AWS run input offline, with the checks of the first state ("Validate and plan") that need
no AWS read: the input schema and rules, serving images and Neo support in the region, the model's
fit in each candidate's memory, Step Functions limits and the cost estimate from the recorded
tables. No account or credentials are needed, no AWS API is called and nothing is created. The
checks that need AWS are listed as skipped; \`npm run -s runs -- plan --input FILE\` runs them all
against a deployed stack.

Options:
  -i, --input FILE     run input (JSON), e.g. examples/huggingface.json
      --region REGION  the region the run would serve in (serving images, Neo). Default: us-east-1
      --bucket NAME    the deployed stack's artifacts bucket. Default: the bucket the input's
                       model.artifactUri (or payload) names
      --run-id ID      run id (the resource names derive from it). Default: local-<date>-<time>
      --json           print the plan and the skipped checks as JSON on stdout
  -h, --help           print this help

Exit codes: 0 the run would start, 2 invalid command line or input (the run would be refused).`;

/**
 * What a plan made offline did not check, and why: each needs an AWS read that this command does
 * not make.
 */
export const SKIPPED_AWS_CHECKS: readonly string[] = [
  "the objects the input names (model.artifactUri, payloads, prompts): that each exists and can be read, its size, a model.tar.gz's gzip signature, the stream payloads' shape (S3 HeadObject and GetObject)",
  "the model's fit from its artifact's size (the S3 object's size); model.size is checked offline too",
  "the account's instance quotas, which bound the candidates in flight and a target's instances (Service Quotas)",
  `live prices of the run's region (Price List API): the estimate uses the input's pricing.usdPerHour, else the recorded table (${PRICE_TABLE_SOURCE.kind}, ${RECORDED_PRICE_REGIONS.join(', ')} rows, each with its source and date); a type neither prices is refused`,
  "the artifacts bucket of the deployed stack (its name, and the roles' read access to it)",
];

/**
 * The store of an offline plan: validateAndPlan is told not to read objects, and any read that
 * still came here would be a call to AWS the plan promised not to make.
 */
export class OfflineObjectStore implements ObjectStore {
  readonly calls: string[] = [];
  head(uri: string): Promise<never> {
    return this.refuse('head', uri);
  }
  getBytes(uri: string): Promise<never> {
    return this.refuse('getBytes', uri);
  }
  getFirstBytes(uri: string): Promise<never> {
    return this.refuse('getFirstBytes', uri);
  }
  putBytes(uri: string): Promise<never> {
    return this.refuse('putBytes', uri);
  }
  list(uri: string): Promise<never> {
    return this.refuse('list', uri);
  }
  private refuse(operation: string, uri: string): Promise<never> {
    this.calls.push(`${operation} ${uri}`);
    return Promise.reject(
      new TypeError(`An offline plan reads no object, but ${operation} was asked of ${uri}`),
    );
  }
}

export interface AwsPlanIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly cwd?: string;
  /** The object store the plan is given: it must never be called. @default a new OfflineObjectStore */
  readonly store?: ObjectStore;
}

export interface AwsPlanOutcome {
  readonly exitCode: number;
  readonly plan?: RunPlan;
}

/** The bucket the input's objects are in: the first s3:// URI of the model, the payload(s) or prompts. */
export function bucketOfInput(document: unknown): string | undefined {
  if (!isRecord(document)) return undefined;
  const uris = [
    isRecord(document.model) ? document.model.artifactUri : undefined,
    isRecord(document.payload) ? document.payload.uri : undefined,
    ...(Array.isArray(document.payloads)
      ? document.payloads.map((payload) => (isRecord(payload) ? payload.uri : undefined))
      : []),
    isRecord(document.prompts) ? document.prompts.uri : undefined,
  ];
  for (const uri of uris) {
    const bucket = typeof uri === 'string' ? /^s3:\/\/([^/]+)\//.exec(uri)?.[1] : undefined;
    if (bucket !== undefined) return bucket;
  }
  return undefined;
}

/** Whether a refusal's text names a region other than the one planned for (where a target or image exists). */
function namesAnotherRegion(text: string, planned: string): boolean {
  return [...text.matchAll(/\b[a-z]{2}(?:-[a-z]+)+-\d\b/g)].some(([region]) => region !== planned);
}

/** A region code such as us-east-1 or ap-southeast-2 (the form of every commercial region). */
const REGION_PATTERN = /^[a-z]{2}(-[a-z]+)+-\d$/;

export async function runAwsPlan(argv: readonly string[], io: AwsPlanIo): Promise<AwsPlanOutcome> {
  const cwd = io.cwd ?? process.cwd();
  const errorLine = (text: string): void => {
    io.stderr.write(`${text}\n`);
  };
  const usageError = (message: string): AwsPlanOutcome => {
    errorLine(`${message}\n\n${AWS_PLAN_USAGE}`);
    return { exitCode: EXIT_CODES.invalid };
  };
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        input: { type: 'string', short: 'i' },
        region: { type: 'string', default: 'us-east-1' },
        bucket: { type: 'string' },
        'run-id': { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    io.stdout.write(`${AWS_PLAN_USAGE}\n`);
    return { exitCode: EXIT_CODES.ok };
  }
  if (values.input === undefined || values.input === '') {
    return usageError(
      'Missing --input FILE: expected the path of a run input (e.g. examples/huggingface.json)',
    );
  }
  if (!REGION_PATTERN.test(values.region)) {
    return usageError(`--region: got ${describeGiven(values.region)}, expected a region such as us-east-1`);
  }
  const runId = values['run-id'] ?? defaultRunId(new Date());
  if (!isValidRunId(runId)) {
    return usageError(`--run-id: got ${describeGiven(runId)}, expected 1–80 letters, digits, "-" or "_"`);
  }
  const inputPath = resolve(cwd, values.input);
  const shownAs = displayPath(cwd, inputPath);
  const document = await readInput(inputPath, errorLine, shownAs);
  if (document === undefined) return { exitCode: EXIT_CODES.invalid };
  // The async planner lists the input prefix's objects to plan its batches: it has no offline plan.
  if (checkedAsyncRunInputSchema.safeParse(document).success) {
    errorLine(
      `${shownAs} is an async-inference run input: npm run plan:aws plans optimization inputs, and an async plan ` +
        `lists its input objects in S3; plan it against the deployed stack: npm run -s runs -- plan --input ${values.input} --workflow async`,
    );
    return { exitCode: EXIT_CODES.invalid };
  }
  const bucket = values.bucket ?? bucketOfInput(document) ?? 'your-artifacts-bucket';
  let plan: RunPlan;
  try {
    plan = await validateAndPlan(
      { runId, input: document },
      {
        store: io.store ?? new OfflineObjectStore(),
        artifactsBucket: bucket,
        allowFileUris: false,
        servingRegion: values.region,
        readObjects: false,
        logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      },
    );
  } catch (error) {
    if (error instanceof InvalidRunInputError) {
      printRefusal(errorLine, shownAs, error.issues);
      if (
        error.issues.some((issue) => namesAnotherRegion(`${issue.given} ${issue.expected}`, values.region))
      ) {
        // Neo targets and serving images differ by region: the refusal names where they exist.
        errorLine(
          `(planned for ${values.region}${argv.includes('--region') ? '' : ', the default'}: ` +
            'to plan for the region the run would serve in, pass --region REGION)',
        );
      }
      return { exitCode: EXIT_CODES.invalid };
    }
    if (error instanceof BudgetExceededError) {
      errorLine(error.message);
      return { exitCode: EXIT_CODES.invalid };
    }
    throw error;
  }
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ plan, skippedChecks: SKIPPED_AWS_CHECKS }, null, 2)}\n`);
    return { exitCode: EXIT_CODES.ok, plan };
  }
  io.stdout.write(
    formatPlan({
      plan,
      runCommand: `npm run -s runs -- start --input ${values.input} (after npm run deploy)`,
    }),
  );
  io.stdout.write(
    [
      '',
      `Planned offline for ${values.region}, artifacts bucket ${bucket}${values.bucket === undefined ? ' (from the input)' : ''}; not checked (they need AWS):`,
      ...SKIPPED_AWS_CHECKS.map((check) => `  skipped: ${check}`),
      '',
    ].join('\n'),
  );
  return { exitCode: EXIT_CODES.ok, plan };
}
