import {
  describeError,
  type InputIssue,
  TransientServiceError,
  type ArtifactPrefix,
  artifactPrefixProblem,
  normalisedObjectUri,
  OBJECT_KEY_EXPECTED,
  objectKeyProblem,
  describeGiven,
} from '../contracts/index.js';
import type { ObjectMetadata, ObjectStore } from '../ports/index.js';

/**
 * The S3 objects a run reads, checked before anything is created, by both workflows' first
 * states (and so by the local CLIs, which run the same validation): each key's shape, then each
 * object's existence, size and, for a model archive, its gzip signature. Every problem is
 * collected, so one refusal lists all the missing inputs of a run, not the first.
 */

export const OBJECT_CHECK_LIMITS = {
  /**
   * Objects checked at once: a thousand inputs take about 63 rounds of HeadObject, not a thousand,
   * far below the 5,500 GET/HEAD requests per second S3 serves per partitioned prefix (S3 user
   * guide, https://docs.aws.amazon.com/AmazonS3/latest/userguide/optimizing-performance.html) and
   * within the SDK's 50 sockets per client.
   */
  concurrency: 16,
  /** Issues listed one by one; the rest are summed up in one more issue. */
  listedIssues: 20,
} as const;

/**
 * `ModelDataUrl` "must point to a single gzip compressed tar archive (.tar.gz suffix)" (SageMaker
 * API reference, ContainerDefinition). A gzip member starts with the bytes 1f 8b (RFC 1952, 2.3.1).
 */
const GZIP_SIGNATURE = [0x1f, 0x8b] as const;

export interface ObjectReference {
  /** The input field that names the object, e.g. `inputs[3]`. */
  readonly field: string;
  readonly uri: string;
  /** `model-archive`: a `.tar.gz` that is gzip-compressed (what SageMaker's ModelDataUrl must be). */
  readonly shape?: 'model-archive';
  /** The largest object the service that reads it takes, and whose limit that is. */
  readonly maxBytes?: { readonly bytes: number; readonly limit: string };
}

export interface ObjectCheckResult {
  /** Every problem found, in the order of the references. */
  readonly issues: readonly InputIssue[];
  /** Each reference's metadata, in the same order; `undefined` where it could not be read. */
  readonly metadata: readonly (ObjectMetadata | undefined)[];
}

/**
 * What can be told from the URIs alone: keys that are not plain names, model archives not named
 * `.tar.gz`. `kind: 'prefix'` for a prefix URI (it may end with `/`).
 */
export function objectUriIssues(
  references: readonly ObjectReference[],
  kind: 'object' | 'prefix' = 'object',
): InputIssue[] {
  return references.flatMap((reference): InputIssue[] => {
    const problem = objectKeyProblem(reference.uri, kind);
    if (problem !== undefined) {
      const normalised = normalisedObjectUri(reference.uri);
      return [
        {
          field: reference.field,
          given: `${describeGiven(reference.uri)} (${problem})`,
          expected:
            normalised === undefined || normalised === reference.uri
              ? OBJECT_KEY_EXPECTED
              : `${OBJECT_KEY_EXPECTED}, e.g. ${JSON.stringify(normalised)}`,
        },
      ];
    }
    if (reference.shape === 'model-archive' && !reference.uri.endsWith('.tar.gz')) {
      return [
        {
          field: reference.field,
          given: describeGiven(reference.uri),
          expected:
            'a model archive whose name ends with ".tar.gz" (SageMaker\'s ModelDataUrl must be one gzip-compressed ' +
            'tar archive); package the model with tar -czf model.tar.gz, or let an optimization run package it',
        },
      ];
    }
    return [];
  });
}

/**
 * References into the artifacts bucket outside the prefixes the run's roles may read
 * (`RUN_INPUT_PREFIXES`): the read would be denied later, in a load worker or inside SageMaker,
 * after endpoints were paid for. URIs in other buckets are not judged here: their owner grants
 * access, and `checkObjects` reads them.
 */
export function artifactPrefixIssues(
  references: readonly ObjectReference[],
  artifactsBucket: string,
  prefixes: readonly ArtifactPrefix[],
): InputIssue[] {
  const readable = prefixes.map((prefix) => `s3://${artifactsBucket}/${prefix}`);
  return references.flatMap((reference): InputIssue[] => {
    const problem = artifactPrefixProblem(reference.uri, artifactsBucket, prefixes);
    if (problem === undefined) return [];
    return [
      {
        field: reference.field,
        given: `${describeGiven(reference.uri)} (${problem})`,
        expected:
          `a URI under ${readable.join(' or ')}: the run's roles read only those prefixes of the artifacts ` +
          'bucket (upload the object beside its model, e.g. models/<model>/payload.json)',
      },
    ];
  });
}

/**
 * Checks that every referenced object exists and can be read, `OBJECT_CHECK_LIMITS.concurrency`
 * at a time. Run `objectUriIssues` first: a key it refuses is not worth a request.
 */
export async function checkObjects(
  references: readonly ObjectReference[],
  store: ObjectStore,
  concurrency: number = OBJECT_CHECK_LIMITS.concurrency,
): Promise<ObjectCheckResult> {
  const outcomes = await mapWithConcurrency(references, concurrency, (reference) =>
    checkObject(reference, store),
  );
  return {
    issues: outcomes.flatMap((outcome) => (outcome.issue === undefined ? [] : [outcome.issue])),
    metadata: outcomes.map((outcome) => outcome.metadata),
  };
}

async function checkObject(
  reference: ObjectReference,
  store: ObjectStore,
): Promise<{ readonly issue?: InputIssue; readonly metadata?: ObjectMetadata }> {
  const given = describeGiven(reference.uri);
  let metadata: ObjectMetadata | undefined;
  try {
    metadata = await store.head(reference.uri);
  } catch (error) {
    // Throttling is no fault of the input: the step's Retry runs the validation again.
    if (error instanceof TransientServiceError) throw error;
    return {
      issue: {
        field: reference.field,
        given,
        expected: `an object the workflow may read (reading it failed: ${describeError(error)}); upload it under models/ or inputs/ in the artifacts bucket, or grant the workflow read access to its bucket`,
      },
    };
  }
  if (metadata === undefined) {
    return {
      issue: {
        field: reference.field,
        given,
        expected: 'an object that exists and that the workflow can read',
      },
    };
  }
  if (reference.maxBytes !== undefined && metadata.sizeBytes > reference.maxBytes.bytes) {
    return {
      metadata,
      issue: {
        field: reference.field,
        given: `${given} (${metadata.sizeBytes} bytes)`,
        expected: `at most ${reference.maxBytes.bytes} bytes (${reference.maxBytes.limit})`,
      },
    };
  }
  if (reference.shape === 'model-archive') {
    const issue = await archiveIssue(reference, store, metadata);
    return issue === undefined ? { metadata } : { metadata, issue };
  }
  return { metadata };
}

/** A model archive must start with gzip's signature: a plain tar or a zip fails in SageMaker. */
async function archiveIssue(
  reference: ObjectReference,
  store: ObjectStore,
  metadata: ObjectMetadata,
): Promise<InputIssue | undefined> {
  const given = describeGiven(reference.uri);
  const expected =
    'a gzip-compressed tar archive (SageMaker unpacks ModelDataUrl as one): create it with tar -czf model.tar.gz …';
  if (metadata.sizeBytes === 0) return { field: reference.field, given: `${given} (0 bytes)`, expected };
  let first: Uint8Array;
  try {
    first = await store.getFirstBytes(reference.uri, GZIP_SIGNATURE.length);
  } catch (error) {
    if (error instanceof TransientServiceError) throw error;
    return {
      field: reference.field,
      given,
      expected: `an archive whose first bytes the workflow may read (reading them failed: ${describeError(error)})`,
    };
  }
  if (GZIP_SIGNATURE.every((byte, index) => first[index] === byte)) return undefined;
  const hex = [...first].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
  return {
    field: reference.field,
    given: `${given} (it starts with the bytes ${hex}, not gzip's 1f 8b)`,
    expected,
  };
}

/**
 * At most `listed` issues, then one that counts the others and names the first and last fields
 * left out, so a refusal of 1,000 missing inputs stays readable (and within a state's output).
 */
export function capIssues(
  issues: readonly InputIssue[],
  listed: number = OBJECT_CHECK_LIMITS.listedIssues,
): InputIssue[] {
  if (issues.length <= listed) return [...issues];
  const rest = issues.slice(listed);
  const first = rest[0]?.field ?? '';
  const last = rest.at(-1)?.field ?? '';
  return [
    ...issues.slice(0, listed),
    {
      field: first === last ? first : `${first} … ${last}`,
      given: `${rest.length} more problem(s) like the ones above, not listed one by one`,
      expected: 'the same fix for each: correct the ones listed, then run again to see any left',
    },
  ];
}

/** `work` over every item, at most `concurrency` at once; results in the items' order. */
async function mapWithConcurrency<Item, Result>(
  items: readonly Item[],
  concurrency: number,
  work: (item: Item) => Promise<Result>,
): Promise<Result[]> {
  const results: Result[] = new Array<Result>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      const item = items[index];
      if (item !== undefined) results[index] = await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results;
}
