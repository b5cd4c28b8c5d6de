import type { InputIssue, PlannedPayload, PlannedPromptSet } from '../contracts/index.js';
import {
  InvalidRunInputError,
  RUN_INPUT_PREFIXES,
  PROMPT_SET_LIMITS,
  promptFormatOf,
  INVOKE_ENDPOINT_MAX_BODY_BYTES,
  payloadField,
  type RunInput,
  runPayloads,
  describeGiven,
} from '../contracts/index.js';
import { preparePromptSet } from '../load-test/index.js';
import type { ObjectStore } from '../ports/index.js';
import { streamPayloadShape } from './stream-payload-shape.js';
import {
  artifactPrefixIssues,
  capIssues,
  checkObjects,
  type ObjectReference,
  objectUriIssues,
} from './object-checks.js';

/**
 * SageMaker's request body limits: `InvokeEndpoint`'s `Body` is at most 6,291,456 bytes (6 MB;
 * SageMaker Runtime API reference, InvokeEndpoint,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html), and
 * "the maximum request and response payload size for serverless invocations is 4 MB" (SageMaker
 * developer guide, "Invoke a serverless endpoint",
 * https://docs.aws.amazon.com/sagemaker/latest/dg/serverless-endpoints-invoke.html).
 */
export const MAX_REALTIME_PAYLOAD_BYTES = INVOKE_ENDPOINT_MAX_BODY_BYTES;
export const MAX_SERVERLESS_PAYLOAD_BYTES = 4 * 1024 * 1024;

/**
 * All of a run's payloads together: each load worker reads them once and holds them for the whole
 * test, beside its histograms, in a 2,048 MB Lambda (infra/constructs/optimization-steps.ts).
 */
export const MAX_PAYLOAD_SET_BYTES = 256 * 1024 * 1024;

/** What the object checks read with: the store, the artifacts bucket, whether `file://` is allowed. */
export interface RunObjectDeps {
  readonly store: ObjectStore;
  readonly artifactsBucket: string;
  /** `file://` URIs are for local mode only: on AWS the Lambdas cannot read the user's disk. */
  readonly allowFileUris: boolean;
  /**
   * Whether the objects the input names are read (existence, size, archive signature, stream
   * payloads, prompt set). False only for a plan made offline (npm run plan:aws), which says so.
   * @default true
   */
  readonly readObjects?: boolean;
}

/** The objects' checks' result: the planned payloads, and the model artifact's size when read. */
export interface CheckedRunObjects {
  readonly payloads: PlannedPayload[];
  readonly artifactBytes?: number;
}

/**
 * The objects the run reads (the shared checks of `object-checks.ts`, as the async workflow's
 * first state runs them): plain keys, each object readable, an artifact named `.tar.gz` a gzip
 * archive (it goes to SageMaker as it is), each payload within SageMaker's body limit and all of
 * them within a load worker's memory, a prompt set within a worker's bounds and every line of it a
 * prompt. Every problem at once. Returns the planned payloads: the run's, each with its size, or
 * one per bucket of the prompt set that holds prompts.
 */
export async function checkRunObjects(
  input: RunInput,
  prompts: PlannedPromptSet | undefined,
  deps: RunObjectDeps,
): Promise<CheckedRunObjects> {
  const hasServerless = input.candidates.some((c) => 'serverless' in c);
  const bodyLimit = {
    bytes: hasServerless ? MAX_SERVERLESS_PAYLOAD_BYTES : MAX_REALTIME_PAYLOAD_BYTES,
    limit: `SageMaker's ${hasServerless ? 'serverless' : 'real-time'} payload limit`,
  };
  const model = input.model;
  const payloads = runPayloads(input);
  const payloadReferences: ObjectReference[] = payloads.map((payload, index) => ({
    field: payloadField(input, index),
    uri: payload.uri,
    maxBytes: bodyLimit,
  }));
  const promptReference: ObjectReference | undefined =
    prompts === undefined
      ? undefined
      : {
          field: 'prompts.uri',
          uri: prompts.uri,
          maxBytes: {
            bytes: PROMPT_SET_LIMITS.maxBytes,
            limit: 'what each load worker holds of a prompt set: a sample of the prompts',
          },
        };
  const references: ObjectReference[] = [
    // A Hugging Face Hub model has no artifact: its container downloads it.
    ...(model?.artifactUri === undefined
      ? []
      : [
          {
            field: 'model.artifactUri',
            uri: model.artifactUri,
            // An artifact that is not a .tar.gz is packaged by the run; one that is goes to SageMaker as it is.
            ...(model.artifactUri.endsWith('.tar.gz') ? { shape: 'model-archive' as const } : {}),
          },
        ]),
    ...(model?.inferenceCodeUri === undefined
      ? []
      : [{ field: 'model.inferenceCodeUri', uri: model.inferenceCodeUri }]),
    ...payloadReferences,
    ...(promptReference === undefined ? [] : [promptReference]),
  ];
  const uriIssues = references.flatMap((reference): InputIssue[] =>
    reference.uri.startsWith('file://') && !deps.allowFileUris
      ? [
          {
            field: reference.field,
            given: describeGiven(reference.uri),
            expected: 'an s3:// URI (file:// works in local mode only)',
          },
        ]
      : unreadableOrMalformed(reference, deps.artifactsBucket),
  );
  const refused = new Set(uriIssues.map((issue) => issue.field));
  const readable = references.filter((reference) => !refused.has(reference.field));
  const checked =
    deps.readObjects === false ? { issues: [], metadata: [] } : await checkObjects(readable, deps.store);
  const sizes = payloadReferences.map((reference) => {
    const index = readable.indexOf(reference);
    return index < 0 ? 0 : (checked.metadata[index]?.sizeBytes ?? 0);
  });
  const promptsReadable =
    promptReference !== undefined &&
    readable.includes(promptReference) &&
    !checked.issues.some((issue) => issue.field === promptReference.field);
  const promptPlan =
    prompts !== undefined && promptsReadable && deps.readObjects !== false
      ? await planPromptSet(prompts, deps.store, bodyLimit)
      : undefined;
  const issues = [...uriIssues, ...checked.issues, ...payloadSetIssues(sizes), ...(promptPlan?.issues ?? [])];
  if (issues.length > 0) throw new InvalidRunInputError(capIssues(issues));
  const artifactBytes =
    checked.metadata[readable.findIndex((reference) => reference.field === 'model.artifactUri')]?.sizeBytes;
  return {
    payloads:
      promptPlan?.payloads ??
      payloads.map((payload, index) => ({ ...payload, sizeBytes: sizes[index] ?? 0 })),
    ...(artifactBytes === undefined ? {} : { artifactBytes }),
  };
}

/** A URI outside the prefixes the run's roles read, else a key that is not a plain name. */
function unreadableOrMalformed(reference: ObjectReference, artifactsBucket: string): InputIssue[] {
  const outside = artifactPrefixIssues([reference], artifactsBucket, RUN_INPUT_PREFIXES.optimization);
  return outside.length > 0 ? outside : objectUriIssues([reference]);
}

/** The run input's `prompts` as the plan carries them, the template resolved. */
export function plannedPromptSet(input: RunInput): PlannedPromptSet | undefined {
  const prompts = input.prompts;
  if (prompts === undefined) return undefined;
  const format = promptFormatOf(prompts.format, input.loadPlan.response);
  // The run input refuses prompts without a format it can resolve (promptFormatIssues).
  if (format === undefined) {
    throw new InvalidRunInputError([
      { field: 'prompts.format', given: 'undefined', expected: 'one of tgi, lmi, openai' },
    ]);
  }
  return {
    uri: prompts.uri,
    format,
    stream: input.loadPlan.response?.mode === 'stream',
    generation: prompts.generation,
    buckets: prompts.buckets,
  };
}

/**
 * Reads the prompt set and builds it as a load worker will (the same function): its problems, each
 * line's at its number, or one payload per bucket that holds prompts, weighted by its prompts so
 * that every prompt is as likely as any other.
 */
async function planPromptSet(
  prompts: PlannedPromptSet,
  store: ObjectStore,
  maxBodyBytes: { readonly bytes: number; readonly limit: string },
): Promise<{ readonly issues: readonly InputIssue[]; readonly payloads: PlannedPayload[] }> {
  const prepared = preparePromptSet(await store.getBytes(prompts.uri), prompts, {
    field: 'prompts.uri',
    maxBodyBytes,
  });
  return {
    issues: prepared.issues,
    payloads: prepared.buckets
      .filter((bucket) => bucket.requests.length > 0)
      .map((bucket) => ({
        uri: prompts.uri,
        contentType: 'application/json',
        weight: bucket.requests.length,
        sizeBytes: bucket.bytes,
        bucket: {
          name: bucket.name,
          ...(bucket.maxChars === undefined ? {} : { maxChars: bucket.maxChars }),
        },
      })),
  };
}

/**
 * A streaming plan's payloads against its format (shared/stream-payload-shape.ts): a body the
 * stream cannot come from is refused, one that loses a figure is a warning. Read after the object
 * checks, so each payload exists and is within SageMaker's body limit.
 */
export async function checkStreamPayloads(input: RunInput, store: ObjectStore): Promise<string[]> {
  const response = input.loadPlan.response;
  if (response?.mode !== 'stream' || response.format === undefined) return [];
  const format = response.format;
  const findings = await Promise.all(
    runPayloads(input).map(async (payload, index) =>
      streamPayloadShape(format, payloadField(input, index), await store.getBytes(payload.uri)),
    ),
  );
  const issues = findings.flatMap((finding) => (finding.issue === undefined ? [] : [finding.issue]));
  if (issues.length > 0) throw new InvalidRunInputError(capIssues(issues));
  return findings.flatMap((finding) => (finding.warning === undefined ? [] : [finding.warning]));
}

/** A mix whose payloads together pass what a load worker can hold, with the largest named. */
function payloadSetIssues(sizes: readonly number[]): InputIssue[] {
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total <= MAX_PAYLOAD_SET_BYTES) return [];
  const largest = sizes.reduce((best, size, index) => (size > (sizes[best] ?? 0) ? index : best), 0);
  return [
    {
      field: 'payloads',
      given: `${sizes.length} payloads of ${total} bytes in all (the largest, payloads[${largest}], ${sizes[largest] ?? 0} bytes)`,
      expected: `at most ${MAX_PAYLOAD_SET_BYTES} bytes in all (each load worker holds every payload in memory): fewer or smaller payloads`,
    },
  ];
}
