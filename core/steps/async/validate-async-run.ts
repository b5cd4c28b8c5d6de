import { basename } from 'node:path';
import { baseFrameworkOf, resolveServingImage } from '../../catalog/index.js';
import {
  AsyncEndpointPhases,
  type AsyncEndpointPlan,
  type AsyncEndpointState,
  type AsyncRunPlan,
  BATCH_SIZE,
  type BatchDescriptor,
  type BatchItem,
  type ValidateAsyncRunEvent,
  type ValidatedAsyncRun,
  type InputIssue,
  InvalidRunInputError,
  DEFAULT_POLL_SCHEDULE,
  type PollSchedule,
  resourceName,
  runTags,
  VARIANT_NAME,
  RUN_INPUT_PREFIXES,
  runPrefixKey,
  s3Uri,
  ASYNC_RUN_LIMITS,
  type AsyncRunInput,
} from '../../contracts/index.js';
import {
  asyncHistoryIssue,
  type AsyncHistoryShape,
  pollRoundsWithin,
  asyncBudgets,
  capIssues,
  checkObjects,
  type ObjectReference,
  objectUriIssues,
  asyncInputIssues,
  parseAsyncRunInput,
} from '../../planning/index.js';
import { buildModelArchive, modelEnvironment, ENDPOINT_DEADLINE_SECONDS } from '../../deployment/index.js';
import { EndpointStatuses, type Logger, type ModelHost, type ObjectStore } from '../../ports/index.js';
import { SCALE_IN_DEADLINE_SECONDS, estimateAsyncRun, checkReusedEndpointRole } from '../../async/index.js';
import type { EndpointRoleReader, PolicySimulator } from '../../async/index.js';

/**
 * State "Validate async run": everything that can be refused is refused here, before anything is
 * created: the input's fields, every object it reads (`checkAsyncRunObjects`), a reused endpoint that is not async or
 * does not notify this stack's topics, a queue TTL the wait cannot outlast.
 *
 * The plan it returns is small whatever the number of inputs: the input list goes to S3 (a
 * manifest), and the workflow's Map iterates over batches of at most `BATCH_SIZE` indexes, each
 * loaded by "Load batch inputs". State payloads are capped at 256 KB (Step Functions quotas); a
 * thousand URIs of up to 1 KB each would not fit.
 */

export interface ValidateAsyncRunDeps {
  readonly store: ObjectStore;
  readonly host: ModelHost;
  readonly artifactsBucket: string;
  readonly region: string;
  /** `file:///` URIs are accepted in local mode only. */
  readonly allowFileUris: boolean;
  /** The topics this stack's notification Lambda listens to: a reused endpoint must publish there. */
  readonly notificationTopics: { readonly successTopicArn: string; readonly errorTopicArn: string };
  /**
   * Checks a reused endpoint's execution role (IAM's policy simulator). Absent: not checked, and
   * the run's output warns so.
   */
  readonly reusedEndpointRole?: {
    readonly roles: EndpointRoleReader;
    readonly simulator: PolicySimulator;
    /** The key that encrypts the topics (the stack's artifacts key). */
    readonly topicsKeyArn?: string;
  };
  /** The wait task's TimeoutSeconds, as deployed. */
  readonly waitTimeoutSeconds: number;
  readonly pollSeconds: number;
  /**
   * The back-off of "Check async endpoint" on AWS, for the worst-case history count.
   * @default DEFAULT_POLL_SCHEDULE (locally too: the quota is AWS's)
   */
  readonly polling?: PollSchedule;
  readonly nowEpochMs: () => number;
  readonly logger: Logger;
}

/** The planning needs everything the state does but the endpoint loop's first wait. */
export type PlanAsyncRunDeps = Omit<ValidateAsyncRunDeps, 'pollSeconds'>;

/** What the planning half of "Validate async run" gives: the plan, and the manifest's items it names. */
export interface PlannedAsyncRun {
  readonly plan: AsyncRunPlan;
  /** One per request sent, in order: the manifest's content (`plan.manifestUri`). */
  readonly items: readonly BatchItem[];
}

/**
 * State "Validate async run": plans the run (`planAsyncRun`), then writes its manifest, the one
 * object the state creates, which "Load batch inputs" reads.
 */
export async function validateAsyncRun(
  event: ValidateAsyncRunEvent,
  deps: ValidateAsyncRunDeps,
): Promise<ValidatedAsyncRun> {
  const { plan, items } = await planAsyncRun(event, deps);
  await packageHubCode(plan, deps.store);
  await deps.store.putBytes(
    plan.manifestUri,
    new TextEncoder().encode(JSON.stringify({ runId: event.runId, items })),
    'application/json',
  );
  return { plan, endpointState: initialEndpointState(plan, plan.plannedAtEpochMs, deps.pollSeconds) };
}

/**
 * Everything "Validate async run" checks and decides, with nothing written: the local `--plan`
 * runs it to show a run before it exists, and refuses an input with the state's own issues.
 */
export async function planAsyncRun(
  event: ValidateAsyncRunEvent,
  deps: PlanAsyncRunDeps,
): Promise<PlannedAsyncRun> {
  const input = parseAsyncRunInput(event.input);
  // The rules that need no AWS read, before any: the run API's start-run runs the same ones.
  const ruleIssues = asyncInputIssues(input, { servingRegion: deps.region });
  if (ruleIssues.length > 0) throw new InvalidRunInputError(ruleIssues);
  refuseUnwaitableQueue(input, deps.waitTimeoutSeconds);
  const inputs = await checkAsyncRunObjects(input, deps);
  const locations = input.benchmark === undefined ? inputs : cycle(inputs, input.benchmark.burstSize);
  const historyShape = historyShapeOf(input, locations.length, deps.polling ?? DEFAULT_POLL_SCHEDULE);
  refuseOverlongHistory(historyShape);
  const { endpoint, warnings } =
    input.endpointName !== undefined
      ? await reusedEndpoint(input.endpointName, locations, input.generative !== undefined, deps)
      : { endpoint: deployedEndpoint(event.runId, input, deps), warnings: [] };

  const runPrefix = runPrefixKey(event.runId);
  const manifestUri = s3Uri(deps.artifactsBucket, `${runPrefix}async/inputs.json`);
  const items = locations.map((inputLocation, itemIndex) => ({ itemIndex, inputLocation }));

  const batches = batchesOf(items.length);
  const { batchConcurrency, itemConcurrency } = concurrencyOf(
    batches.length,
    items.length,
    input.benchmark === undefined ? input.maxConcurrency : items.length,
  );
  const plan: AsyncRunPlan = {
    runId: event.runId,
    ...(input.name === undefined ? {} : { name: input.name }),
    runPrefixUri: s3Uri(deps.artifactsBucket, runPrefix),
    manifestUri,
    itemCount: items.length,
    batches,
    batchConcurrency,
    itemConcurrency,
    invocation: {
      endpointName: endpoint.endpointName,
      contentType: input.contentType,
      invocationTimeoutSeconds: input.invocationTimeoutSeconds,
      requestTtlSeconds: input.requestTtlSeconds,
      waitTimeoutSeconds: deps.waitTimeoutSeconds,
    },
    endpoint,
    ...(input.benchmark === undefined ? {} : { benchmark: { burstSize: input.benchmark.burstSize } }),
    ...(input.generative === undefined ? {} : { generative: { format: input.generative.format } }),
    tags: runTags(event.runId),
    plannedAtEpochMs: deps.nowEpochMs(),
    budgets: asyncBudgets(historyShape),
    ...(warnings.length === 0 ? {} : { warnings }),
  };
  const estimate = estimateAsyncRun(plan);
  for (const warning of warnings)
    deps.logger.warn('Async run not fully checked', { runId: event.runId, warning });
  deps.logger.info('Async run planned', {
    runId: event.runId,
    endpointName: endpoint.endpointName,
    action: endpoint.action,
    inputs: items.length,
    batches: batches.length,
    inFlight: Math.min(items.length, batchConcurrency * itemConcurrency),
    estimatedCostUsd: estimate.totalUsd,
  });
  return { plan: { ...plan, estimate }, items };
}

/**
 * A Hub model's inference code (`endpoint.codeUri`) becomes the model data: the code alone, under
 * `code/`, built by the optimization workflow's packager (`buildModelArchive`), so the container
 * finds it where it imports it from (run-input.ts, `asyncEndpointSourceIssues`).
 */
async function packageHubCode(plan: AsyncRunPlan, store: ObjectStore): Promise<void> {
  const deploy = plan.endpoint.deploy;
  if (deploy?.codeUri === undefined || deploy.modelDataUrl === undefined) return;
  const code = {
    fileName: basename(deploy.codeUri),
    bytes: await store.getBytes(deploy.codeUri),
    field: 'endpoint.codeUri',
  };
  await store.putBytes(deploy.modelDataUrl, await buildModelArchive({ code }), 'application/gzip');
}

/** Deployed endpoints start creating; a benchmark first waits for zero instances; else ready. */
function initialEndpointState(plan: AsyncRunPlan, nowMs: number, pollSeconds: number): AsyncEndpointState {
  if (plan.endpoint.action === 'deploy') {
    return {
      phase: AsyncEndpointPhases.creating,
      waitSeconds: pollSeconds,
      deadlineEpochMs: nowMs + ENDPOINT_DEADLINE_SECONDS * 1000,
    };
  }
  return plan.benchmark === undefined
    ? { phase: AsyncEndpointPhases.ready, waitSeconds: 0, deadlineEpochMs: nowMs }
    : {
        phase: AsyncEndpointPhases.scalingIn,
        waitSeconds: pollSeconds,
        deadlineEpochMs: nowMs + SCALE_IN_DEADLINE_SECONDS * 1000,
      };
}

/**
 * Every S3 object the run reads, checked before anything is created: each URI must be
 * readable by SageMaker and a plain key (`objectUriIssues`), the model data a gzip-compressed
 * `.tar.gz`, and every listed input must exist, all checked at once so one refusal lists every
 * problem (the first `OBJECT_CHECK_LIMITS.listedIssues`, then a count). Objects found under
 * `inputPrefix` exist by construction; their keys are checked too. Returns the inputs' URIs.
 * The local async CLI runs it before starting the run, so both refuse with the same issues.
 */
export async function checkAsyncRunObjects(
  input: AsyncRunInput,
  deps: Pick<ValidateAsyncRunDeps, 'store' | 'artifactsBucket' | 'allowFileUris'>,
): Promise<readonly string[]> {
  const endpoint = input.endpoint;
  const named: ObjectReference[] = [
    ...(endpoint?.modelDataUrl === undefined
      ? []
      : [{ field: 'endpoint.modelDataUrl', uri: endpoint.modelDataUrl, shape: 'model-archive' } as const]),
    ...(endpoint?.codeUri === undefined ? [] : [{ field: 'endpoint.codeUri', uri: endpoint.codeUri }]),
    ...(input.inputs ?? []).map((uri, index) => ({ field: `inputs[${index}]`, uri })),
  ];
  const prefix: ObjectReference | undefined =
    input.inputPrefix === undefined ? undefined : { field: 'inputPrefix', uri: input.inputPrefix };
  const uriIssues = [
    ...named.flatMap((reference) => unreadableUriIssues(reference, deps) ?? objectUriIssues([reference])),
    ...(prefix === undefined
      ? []
      : (unreadableUriIssues(prefix, deps) ?? objectUriIssues([prefix], 'prefix'))),
  ];
  const refused = new Set(uriIssues.map((issue) => issue.field));
  const checked = await checkObjects(
    named.filter((reference) => !refused.has(reference.field)),
    deps.store,
  );
  const listing =
    prefix === undefined || refused.has(prefix.field)
      ? { uris: [], issues: [] }
      : await listInputs(prefix.uri, deps.store);
  // A listed key that is not a plain name (e.g. uploaded as inputs/../x.json) would be read differently.
  const listedKeyIssues = listing.uris.flatMap((uri) => objectUriIssues([{ field: 'inputPrefix', uri }]));
  const issues = [...uriIssues, ...checked.issues, ...listing.issues, ...listedKeyIssues];
  if (issues.length > 0) throw new InvalidRunInputError(capIssues(issues));
  return input.inputs ?? listing.uris;
}

/**
 * SageMaker reads the inputs and the model with the stack's execution role, which may read the
 * artifacts bucket's `RUN_INPUT_PREFIXES.async` only: anything else
 * would fail inside SageMaker, after the endpoint was paid for. Local `file:///` URIs are accepted
 * in local mode only. `undefined` when the URI is readable.
 */
function unreadableUriIssues(
  { field, uri }: ObjectReference,
  deps: Pick<ValidateAsyncRunDeps, 'artifactsBucket' | 'allowFileUris'>,
): InputIssue[] | undefined {
  if (uri.startsWith('file://')) {
    return deps.allowFileUris
      ? undefined
      : [{ field, given: JSON.stringify(uri), expected: 'an s3:// URI (file:/// is for local mode only)' }];
  }
  const readable = RUN_INPUT_PREFIXES.async.map((prefix) => `s3://${deps.artifactsBucket}/${prefix}`);
  return readable.some((prefix) => uri.startsWith(prefix))
    ? undefined
    : [
        {
          field,
          given: JSON.stringify(uri),
          expected: `a URI under ${readable.join(', ')} (the SageMaker execution role reads only those; upload there, see docs/deploying.md)`,
        },
      ];
}

/** A request may wait its TTL in the queue and then run its invocation timeout: the wait must outlast both. */
function refuseUnwaitableQueue(input: AsyncRunInput, waitTimeoutSeconds: number): void {
  const worstCase = input.requestTtlSeconds + input.invocationTimeoutSeconds;
  if (worstCase < waitTimeoutSeconds) return;
  const why = `queue time plus processing (${input.requestTtlSeconds} + ${input.invocationTimeoutSeconds} = ${worstCase} s) must stay under the deployed wait timeout of ${waitTimeoutSeconds} s (the stack's asyncInference.waitTimeout)`;
  const maxTtl = waitTimeoutSeconds - input.invocationTimeoutSeconds - 1;
  // Below SageMaker's minimum TTL, no TTL fits: the invocation timeout is what must give.
  if (maxTtl < ASYNC_RUN_LIMITS.minRequestTtlSeconds) {
    const maxInvocation = waitTimeoutSeconds - ASYNC_RUN_LIMITS.minRequestTtlSeconds - 1;
    throw new InvalidRunInputError([
      {
        field: 'invocationTimeoutSeconds',
        given: String(input.invocationTimeoutSeconds),
        expected: `at most ${Math.max(0, maxInvocation)} with requestTtlSeconds ${ASYNC_RUN_LIMITS.minRequestTtlSeconds} (its minimum): ${why}`,
      },
    ]);
  }
  throw new InvalidRunInputError([
    {
      field: 'requestTtlSeconds',
      given: String(input.requestTtlSeconds),
      expected: `at most ${maxTtl} with invocationTimeoutSeconds ${input.invocationTimeoutSeconds}: ${why}`,
    },
  ]);
}

/**
 * The worst case of the run's history: the endpoint deployed and polled to its deadline, a
 * benchmark's whole scale-in wait, every input failed.
 */
function historyShapeOf(input: AsyncRunInput, inputs: number, polling: PollSchedule): AsyncHistoryShape {
  const deployRounds =
    input.endpointName === undefined ? pollRoundsWithin(ENDPOINT_DEADLINE_SECONDS, polling) : 0;
  const scaleInRounds =
    input.benchmark === undefined ? 0 : pollRoundsWithin(SCALE_IN_DEADLINE_SECONDS, polling);
  return { inputs, batchSize: BATCH_SIZE, endpointRounds: deployRounds + scaleInRounds };
}

/**
 * A full history fails the execution and cannot be caught (Step Functions quotas: 25,000 events):
 * the worst case is counted before anything is created.
 */
function refuseOverlongHistory(shape: AsyncHistoryShape): void {
  const issue = asyncHistoryIssue(shape);
  if (issue !== undefined) throw new InvalidRunInputError([issue]);
}

/** The objects under the input prefix, or why they cannot be the inputs: none, or over `maxInputs`. */
async function listInputs(
  prefix: string,
  store: ObjectStore,
): Promise<{ readonly uris: readonly string[]; readonly issues: readonly InputIssue[] }> {
  const listing = await store.list(prefix, ASYNC_RUN_LIMITS.maxInputs + 1);
  if (listing.uris.length === 0) {
    const issue = {
      field: 'inputPrefix',
      given: JSON.stringify(prefix),
      expected: 'a prefix with at least one object under it; found none',
    };
    return { uris: [], issues: [issue] };
  }
  if (listing.truncated || listing.uris.length > ASYNC_RUN_LIMITS.maxInputs) {
    const issue = {
      field: 'inputPrefix',
      given: `${JSON.stringify(prefix)} (more than ${ASYNC_RUN_LIMITS.maxInputs} objects)`,
      expected: `at most ${ASYNC_RUN_LIMITS.maxInputs} objects (split them under several prefixes, one run each)`,
    };
    return { uris: [], issues: [issue] };
  }
  return { uris: listing.uris, issues: [] };
}

function cycle(inputs: readonly string[], count: number): readonly string[] {
  return Array.from({ length: count }, (_, index) => inputs[index % inputs.length] ?? '');
}

/**
 * Splits `maxInFlight` between the two nested Maps. When every input fits, all batches run at once
 * with full batches (a benchmark's burst is sent at once). Otherwise as many batches as needed run
 * at once, each with an equal share, so that batches × share ≤ `maxInFlight` and comes as close to
 * it as whole numbers allow (100 → 3 batches × 33, not 2 × 40).
 */
export function concurrencyOf(
  batchCount: number,
  itemCount: number,
  maxInFlight: number,
): { readonly batchConcurrency: number; readonly itemConcurrency: number } {
  if (maxInFlight >= itemCount) {
    return {
      batchConcurrency: Math.max(1, batchCount),
      itemConcurrency: Math.max(1, Math.min(BATCH_SIZE, itemCount)),
    };
  }
  const batchConcurrency = Math.max(1, Math.min(batchCount, Math.ceil(maxInFlight / BATCH_SIZE)));
  return {
    batchConcurrency,
    itemConcurrency: Math.max(1, Math.min(BATCH_SIZE, Math.floor(maxInFlight / batchConcurrency))),
  };
}

function batchesOf(itemCount: number): BatchDescriptor[] {
  const batches: BatchDescriptor[] = [];
  for (let first = 0; first < itemCount; first += BATCH_SIZE) {
    batches.push({
      batchIndex: batches.length,
      firstItemIndex: first,
      itemCount: Math.min(BATCH_SIZE, itemCount - first),
    });
  }
  return batches;
}

/**
 * Statuses in which an endpoint takes no request (DescribeEndpoint `EndpointStatus`: OutOfService
 * "is not available to take incoming requests", Creating, Deleting, Failed). Every invocation of
 * the run would fail, so the run is refused before it starts. Updating, SystemUpdating, RollingBack
 * and UpdateRollbackFailed endpoints still serve.
 */
const UNSERVING_STATUSES: readonly string[] = [
  EndpointStatuses.outOfService,
  EndpointStatuses.creating,
  EndpointStatuses.deleting,
  EndpointStatuses.failed,
];

async function reusedEndpoint(
  endpointName: string,
  inputLocations: readonly string[],
  generative: boolean,
  deps: PlanAsyncRunDeps,
): Promise<{ readonly endpoint: AsyncEndpointPlan; readonly warnings: readonly string[] }> {
  const refuse = (expected: string, got: string): never => {
    throw new InvalidRunInputError([
      { field: 'endpointName', given: `${JSON.stringify(endpointName)} (${got})`, expected },
    ]);
  };
  const endpoint = await deps.host.describeEndpoint(endpointName);
  if (endpoint === undefined) return refuse('an existing endpoint', 'no endpoint has that name');
  if (UNSERVING_STATUSES.includes(endpoint.status)) {
    return refuse(
      'an endpoint that takes requests (InService, or Updating/SystemUpdating/RollingBack)',
      `it is ${endpoint.status}${endpoint.failureReason === undefined ? '' : `: ${endpoint.failureReason}`}`,
    );
  }
  const config = endpoint.asyncInference;
  if (config === undefined) {
    return refuse(
      'an asynchronous endpoint (AsyncInferenceConfig in its endpoint config)',
      'a real-time or serverless endpoint',
    );
  }
  const { successTopicArn, errorTopicArn } = deps.notificationTopics;
  if (config.successTopicArn !== successTopicArn || config.errorTopicArn !== errorTopicArn) {
    return refuse(
      `an endpoint whose NotificationConfig publishes to SuccessTopic ${successTopicArn} and ErrorTopic ${errorTopicArn} (this stack's topics, which resume the waiting tasks)`,
      `SuccessTopic ${config.successTopicArn ?? 'none'}, ErrorTopic ${config.errorTopicArn ?? 'none'}`,
    );
  }
  if (generative) refuseUnreadableResults(endpointName, config.s3OutputPath, deps.artifactsBucket);
  const warnings =
    deps.reusedEndpointRole === undefined
      ? [
          `The permissions of endpoint ${endpointName}'s execution role were not checked (no policy simulator configured): if it cannot publish to this stack's topics, its inputs will wait until the wait's timeout.`,
        ]
      : await checkReusedEndpointRole(endpointName, config, inputLocations, {
          ...deps.reusedEndpointRole,
          notificationTopics: deps.notificationTopics,
          region: deps.region,
        });
  return {
    endpoint: {
      action: 'reuse',
      endpointName,
      variantName: endpoint.variantName ?? VARIANT_NAME,
      keepAfterRun: true,
    },
    warnings,
  };
}

/**
 * A generative run reads every result to count its tokens ("Record batch results"), and the
 * stack's Lambdas read run results under `runs/` of the artifacts bucket only (least privilege): a
 * reused endpoint that writes elsewhere is refused before anything is sent, rather than every
 * result reported uncounted.
 */
function refuseUnreadableResults(
  endpointName: string,
  s3OutputPath: string | undefined,
  artifactsBucket: string,
): void {
  const readable = `s3://${artifactsBucket}/runs/`;
  if (s3OutputPath !== undefined && `${s3OutputPath.replace(/\/$/, '')}/`.startsWith(readable)) return;
  throw new InvalidRunInputError([
    {
      field: 'generative',
      given: `endpoint ${endpointName} writes its results to ${s3OutputPath ?? 'no S3OutputPath'}`,
      expected:
        `results under ${readable} (the run's Lambdas read results there to count their tokens): ` +
        `set the endpoint config's S3OutputPath under that prefix, deploy the endpoint with the run ("endpoint"), or remove "generative"`,
    },
  ]);
}

/**
 * The module the inference toolkit imports from `code/`: `SAGEMAKER_PROGRAM`, `inference.py` when
 * absent (aws/sagemaker-inference-toolkit, environment.py `DEFAULT_MODULE_NAME`, parameters.py
 * `USER_PROGRAM_ENV`). A single script given as `codeUri` is that module, whatever its name; a code
 * folder (`.tar.gz`) keeps the default, `inference.py`.
 */
function programEnvironment(codeUri: string | undefined): Record<string, string> {
  if (codeUri === undefined || !codeUri.endsWith('.py')) return {};
  return { SAGEMAKER_PROGRAM: basename(codeUri) };
}

function deployedEndpoint(
  runId: string,
  input: AsyncRunInput,
  deps: Pick<PlanAsyncRunDeps, 'region' | 'artifactsBucket'>,
): AsyncEndpointPlan {
  const spec = input.endpoint;
  if (spec === undefined) throw new TypeError('deployedEndpoint: the input has no endpoint');
  // Resolved now, so a framework/instance without a known image is refused before anything exists.
  const image = resolveServingImage({
    framework: spec.framework,
    frameworkVersion: spec.frameworkVersion,
    baseFramework: baseFrameworkOf(spec),
    region: deps.region,
    instanceType: spec.instanceType,
    explicitImage: spec.image,
  }).imageUri;
  // A Hub model's code is packaged alone under the run's prefix, as "Package model" does.
  const modelDataUrl =
    spec.codeUri === undefined
      ? spec.modelDataUrl
      : s3Uri(deps.artifactsBucket, `${runPrefixKey(runId)}async/model/model.tar.gz`);
  return {
    action: 'deploy',
    endpointName: resourceName(runId, 'endpoint', 'async'),
    endpointConfigName: resourceName(runId, 'endpoint-config', 'async'),
    modelName: resourceName(runId, 'model', 'async'),
    variantName: VARIANT_NAME,
    keepAfterRun: spec.keepAfterRun,
    deploy: {
      image,
      ...(modelDataUrl === undefined ? {} : { modelDataUrl }),
      ...(spec.codeUri === undefined ? {} : { codeUri: spec.codeUri }),
      // Where the container finds the model (Hub settings, or an LLM container's model variable)
      // first, the endpoint's own environment wins: the optimization deploy's order.
      environment: {
        ...modelEnvironment({ framework: spec.framework, hub: spec.hub }),
        ...programEnvironment(spec.codeUri),
        ...spec.environment,
      },
      instanceType: spec.instanceType,
      maxInstanceCount: spec.maxInstanceCount,
      ...(spec.maxConcurrentInvocationsPerInstance === undefined
        ? {}
        : { maxConcurrentInvocationsPerInstance: spec.maxConcurrentInvocationsPerInstance }),
      targetBacklogPerInstance: spec.targetBacklogPerInstance,
    },
  };
}
