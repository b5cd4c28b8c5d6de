/**
 * `npm run start:async`: runs an async-inference input locally, end to end, over the synthesized
 * async state machine, a local async endpoint (queue, model server instances, autoscaling from
 * zero) and local notifications, with live progress and a summary. `local/async-cli.ts` is the
 * process entry; tests call `runAsyncCli` in-process.
 */
import { join, resolve } from 'node:path';
import {
  AsyncInferenceStates,
  type AsyncRunSummary,
  type ItemResult,
  type NoInputCompletedCause,
  ErrorNames,
  type InputIssue,
  InvalidRunInputError,
  recordOf,
} from '../../../core/contracts/index.js';
import { checkAsyncRunObjects } from '../../../core/steps/async/validate-async-run.js';
import { displayPath, withLocalFiles } from '../shared.js';
import { type CliIo, type CliRunOutcome, runWorkflowCli, type WorkflowCli } from '../workflow-cli.js';
import type { FileObjectStore } from '../../platform/index.js';
import {
  createLocalAsyncEnvironment,
  LOCAL_ARTIFACTS_BUCKET,
  type LocalAsyncEnvironment,
  type LocalAsyncRunOutcome,
  runLocalAsyncInference,
} from '../../environment/index.js';
import { seedAsyncExampleObjects } from './example-inputs.js';
import { asyncLocalModeIssues, withAsyncLocalDefaults } from './local-input.js';
import type { JsonValue } from '../../runner/index.js';
import { formatAsyncPlan } from '../../../core/report/index.js';
import { AsyncProgressReporter } from './progress.js';
import { formatAsyncSummary } from './summary.js';
import { parseAsyncRunInput } from '../../../core/planning/index.js';

export const ASYNC_USAGE = `Usage: npm run start:async -- [--input FILE] [options]
       npx tsx local/async-cli.ts --input FILE [options]

Runs the async-inference workflow locally: the same state machine definition that is deployed to
AWS, over a local asynchronous endpoint. The endpoint queues each request, runs it on ONNX Runtime
model server processes (its instances, scaled from zero by the backlog), writes results and
failures to the local store and publishes SageMaker's notifications to the same notification
handler that resumes the waiting tasks on AWS. Nothing is downloaded; no AWS account is needed.

Options:
  -i, --input FILE   run input (JSON, the async schema). npm run start:async uses examples/local-async.json
      --run-id ID    run id (letters, digits, - and _; at most 80). Default: local-<date>-<time>
      --store DIR    folder of the local buckets (s3://bucket/key → DIR/bucket/key). Default: .local-store
      --runs DIR     folder of the runs: the summary lands in DIR/<run id>/async/. Default: runs
  -v, --verbose      also print every step's log lines
      --plan         print what the run would do (endpoint, inputs, batches), or why it would be
                     refused, then exit: the first state's own checks and plan; nothing is created
      --json         with --plan: print the plan as JSON on stdout (and nothing else there)
  -h, --help         print this help

Local mode:
  - endpoint.framework must be "onnx"; endpoint.image is ignored (the project's model server serves
    every model). Reusing an endpoint (endpointName) is not possible: each run starts with none.
  - Inputs may be file:///absolute/path URIs or s3://local-artifacts/... URIs (under --store).
    examples/local-async.json uses the generated example model and 20 generated inputs, written on
    first use under s3://local-artifacts/models/example-cnn/ and s3://local-artifacts/inputs/example-cnn/.
  - An instance is a model server process with the instance type's vCPUs as threads (capped to
    this machine's cores); starting one is the local scale-out delay. Scaling cooldowns are
    shortened 100 times (the workflow's 600 s scale-in cooldown lasts 6 s).

Exit codes: 0 every input completed (--plan: the run would start), 1 the run failed, 2 invalid
command line or input (--plan: the run would be refused), 4 no input completed, 5 partial (some
inputs failed or timed out), 130 interrupted (Ctrl-C, SIGINT), 143 terminated (SIGTERM).`;

interface SummaryFiles {
  /** Files of summary.json, summary.md and report.html, when the run succeeded. */
  readonly summaryFiles: { readonly json: string; readonly markdown: string; readonly html?: string };
  readonly summary: AsyncRunSummary;
}

export interface AsyncCliOutcome extends CliRunOutcome, Partial<SummaryFiles> {}

/** How often the live line and the scaling activities are refreshed. */
const PROGRESS_INTERVAL_MS = 200;

/** The async-inference workflow's hooks into the local CLI skeleton. */
const asyncInferenceCli: WorkflowCli<
  LocalAsyncEnvironment,
  AsyncProgressReporter,
  true,
  LocalAsyncRunOutcome,
  SummaryFiles
> = {
  usage: ASYNC_USAGE,
  workflowName: 'async-inference',
  // "Summarize async run" writes it under the run's prefix
  // (core/steps/async/summarize-async-run.ts).
  reportFile: join('async', 'summary.json'),
  stateMachine: (workflows) => workflows.asyncInference,
  deleted: 'the endpoint was deleted',
  checkInput: (document) => {
    const input = withAsyncLocalDefaults(document);
    return { input, issues: precheck(input) };
  },
  createReporter: ({ output, elapsedMs }) => new AsyncProgressReporter({ output, elapsedMs }),
  createEnvironment: ({ storeDir, runsDir, writesInMemory, logger, workflows }) =>
    createLocalAsyncEnvironment({
      storeDir,
      runsDir,
      writesInMemory,
      logger,
      // The first state checks queue TTLs against the wait's timeout as synthesized.
      waitTimeoutSeconds: workflows().asyncWaitTimeoutSeconds,
    }),
  async prepare({ input, environment, reporter, cwd, runId, args, refuse, workflows }) {
    for (const uri of await seedAsyncExampleObjects(environment.store, input)) {
      if (args.verbose || uri.endsWith('.tar.gz') || uri.endsWith('input-0001.bin')) {
        reporter.line(
          `Wrote the example ${uri.endsWith('.tar.gz') ? 'model' : 'inputs'} to ${displayPath(cwd, environment.store.pathOf(uri))}${uri.endsWith('.bin') ? ' …' : ''}`,
        );
      }
    }
    const objectIssues = await precheckObjects(input, environment);
    if (objectIssues.length > 0) {
      refuse(objectIssues);
      return undefined;
    }
    reporter.line(
      `Run ${runId}: ${workflows().asyncInference.name}, summary in ${displayPath(cwd, resolve(cwd, args.runsDir, runId, 'async'))}`,
    );
    return true;
  },
  async plan({ input, environment, runId, args, refuse, cwd }) {
    await seedAsyncExampleObjects(environment.store, input);
    try {
      // "Validate async run" without its manifest write, over the environment the run uses.
      const planned = await environment.planRun({ runId, input });
      return {
        json: { plan: planned.plan, items: planned.items } as unknown as JsonValue,
        text: formatAsyncPlan({
          planned,
          runCommand: `npm run start:async -- --input ${args.inputPath ?? 'FILE'}`,
          displayUri: localFiles(environment.store, cwd),
          local: true,
        }),
      };
    } catch (error) {
      if (!(error instanceof InvalidRunInputError)) throw error;
      refuse(error.issues);
      return undefined;
    }
  },
  async run({ environment, reporter }, execution) {
    let watched: WatchedVariant | undefined;
    const progress = watchEndpoint(environment, reporter, () => watched);
    try {
      return await runLocalAsyncInference({
        environment,
        ...execution,
        onEvent: (event) => {
          if (event.type === 'StateExited' && event.stateName === AsyncInferenceStates.validateAsyncRun) {
            watched = variantOf(event.output);
          }
          // The endpoint's counts as of this event, so a line like "Batch 0 recorded" follows them.
          if (event.type === 'StateExited') progress.refresh();
          execution.onEvent?.(event);
        },
      });
    } finally {
      progress.stop();
    }
  },
  async summarize({ environment, cwd, io }, output) {
    const { summaryUri } = output as unknown as Pick<AsyncRunSummary, 'summaryUri'>;
    const { items, ...written } = JSON.parse(
      new TextDecoder().decode(await environment.store.getBytes(summaryUri)),
    ) as AsyncRunSummary & { items: ItemResult[] };
    // A run that succeeded gives its summary as its output; one that ended in "No input completed"
    // names the summary in its cause, and summary.json has the rest.
    const summary: AsyncRunSummary = { ...written, ...(output as unknown as Partial<AsyncRunSummary>) };
    const document = { items };
    const summaryFiles = {
      json: environment.store.pathOf(summary.summaryUri),
      markdown: environment.store.pathOf(summary.summaryMarkdownUri),
      ...(summary.reportHtmlUri === undefined
        ? {}
        : { html: environment.store.pathOf(summary.reportHtmlUri) }),
    };
    io.stdout.write(
      formatAsyncSummary({
        summary,
        items: document.items,
        summaryPaths: {
          json: displayPath(cwd, summaryFiles.json),
          markdown: displayPath(cwd, summaryFiles.markdown),
          ...(summaryFiles.html === undefined ? {} : { html: displayPath(cwd, summaryFiles.html) }),
        },
        displayUri: localFiles(environment.store, cwd),
      }),
    );
    return { summaryFiles, summary };
  },
  // Inputs that failed or timed out make the exit code 5 (some) or 4 (all): exit-codes.ts.
  outcomeOf: (output) => {
    const outcome = recordOf(output)?.outcome;
    return typeof outcome === 'string' ? outcome : undefined;
  },
  // "No input completed" ends the execution FAILED, its summary written: the cause names it.
  resultOfFailedRun: ({ error, cause }) => {
    if (error !== ErrorNames.noInputCompleted) return undefined;
    try {
      const parsed = JSON.parse(cause) as Partial<NoInputCompletedCause>;
      const summaryUri = parsed.summary?.summaryUri;
      return typeof summaryUri === 'string' && typeof parsed.outcome === 'string'
        ? { summaryUri, outcome: parsed.outcome }
        : undefined;
    } catch {
      return undefined;
    }
  },
};

/**
 * A URI (or a text holding some) as a local user opens it: each `s3://local-artifacts/…` URI as the
 * file the store keeps it in. summary.json and summary.md keep the URIs.
 */
function localFiles(store: Pick<FileObjectStore, 'pathOf'>, cwd: string): (text: string) => string {
  return (text) => withLocalFiles(text, store, cwd);
}

/** `npm run start:async`: the async-inference workflow, run locally from its command line. */
export function runAsyncCli(argv: readonly string[], io: CliIo): Promise<AsyncCliOutcome> {
  return runWorkflowCli(argv, io, asyncInferenceCli);
}

/** Every problem at once: what local mode cannot run, then the schema's issues on other fields. */
function precheck(input: unknown): readonly InputIssue[] {
  const localIssues = asyncLocalModeIssues(input);
  const localFields = new Set(localIssues.map((issue) => issue.field));
  try {
    parseAsyncRunInput(input);
    return localIssues;
  } catch (error) {
    if (!(error instanceof InvalidRunInputError)) throw error;
    return [...localIssues, ...error.issues.filter((issue) => !localFields.has(issue.field))];
  }
}

/**
 * The objects the run reads, checked as the first state checks them ("Validate async run" runs the
 * same `checkAsyncRunObjects`), so a missing input is refused here with exit code 2 before any
 * model server starts. `input` passed `precheck`.
 */
async function precheckObjects(
  input: unknown,
  environment: LocalAsyncEnvironment,
): Promise<readonly InputIssue[]> {
  try {
    await checkAsyncRunObjects(parseAsyncRunInput(input), {
      store: environment.store,
      artifactsBucket: LOCAL_ARTIFACTS_BUCKET,
      allowFileUris: true,
    });
    return [];
  } catch (error) {
    if (!(error instanceof InvalidRunInputError)) throw error;
    return error.issues;
  }
}

interface WatchedVariant {
  readonly endpointName: string;
  readonly variantName: string;
}

/** Refreshes the live line and the scaling lines while the run's endpoint exists. */
function watchEndpoint(
  environment: LocalAsyncEnvironment,
  reporter: AsyncProgressReporter,
  watched: () => WatchedVariant | undefined,
): { readonly refresh: () => void; readonly stop: () => void } {
  const since = Date.now();
  const refresh = (): void => {
    const variant = watched();
    if (variant === undefined) return;
    const endpoint = environment.host.asyncEndpoint(variant.endpointName);
    if (endpoint !== undefined) reporter.onEndpoint(endpoint.snapshot());
    reporter.onActivities(
      environment.platform.telemetry.activities(variant.endpointName, variant.variantName, since),
    );
  };
  const timer = setInterval(refresh, PROGRESS_INTERVAL_MS);
  timer.unref();
  return {
    refresh,
    stop: () => {
      clearInterval(timer);
      refresh();
    },
  };
}

/** The endpoint variant of the plan "Validate async run" returned. */
function variantOf(output: unknown): WatchedVariant | undefined {
  if (typeof output !== 'object' || output === null) return undefined;
  const endpoint = (output as { plan?: { endpoint?: { endpointName?: unknown; variantName?: unknown } } })
    .plan?.endpoint;
  const { endpointName, variantName } = endpoint ?? {};
  return typeof endpointName === 'string' && typeof variantName === 'string'
    ? { endpointName, variantName }
    : undefined;
}
