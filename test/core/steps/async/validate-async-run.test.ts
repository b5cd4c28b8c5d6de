import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { list as listTar } from 'tar';
import {
  planAsyncRun,
  validateAsyncRun,
  type ValidateAsyncRunDeps,
} from '../../../../core/steps/async/validate-async-run.js';
import { AsyncEndpointPhases, type ValidatedAsyncRun } from '../../../../core/contracts/async-state.js';
import { type InputIssue, InvalidRunInputError } from '../../../../core/contracts/errors.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import { asyncEndpointDescription, ScriptedSageMaker } from '../../async/support/async-fakes.js';

const NOW_MS = Date.parse('2026-05-23T03:00:00.000Z');
const RUN_ID = 'nightly-2026-05-23';
/** `runToken(RUN_ID)`: every resource name of the run starts with `mso-<token>-`. */
const RUN_TOKEN = 'nightly-2026-05-23-558c6ef5';
const BUCKET = 'mso-artifacts';
const MANIFEST_URI = `s3://${BUCKET}/runs/${RUN_ID}/async/inputs.json`;
const TOPICS = {
  successTopicArn: 'arn:aws:sns:us-east-1:123456789012:mso-async-success',
  errorTopicArn: 'arn:aws:sns:us-east-1:123456789012:mso-async-error',
};
const REUSED = 'team-async-endpoint';
/** The deployed wait timeout: 7 h 15 min, the workflow's default. */
const WAIT_TIMEOUT_SECONDS = 26_100;
const POLL_SECONDS = 30;

const DEPLOYED_ENDPOINT = {
  modelDataUrl: `s3://${BUCKET}/models/cnn/model.tar.gz`,
  framework: 'pytorch',
  instanceType: 'ml.c5.xlarge',
};

/** A Hugging Face Hub model deployed for the run: no model data. */
const HUB_ENDPOINT = {
  framework: 'huggingface',
  frameworkVersion: '4.49.0',
  pytorchVersion: '2.6.0',
  hub: { modelId: 'distilbert/distilbert-base-uncased-finetuned-sst-2-english' },
  instanceType: 'ml.m5.xlarge',
};

let store: MemoryObjectStore;
let sagemaker: ScriptedSageMaker;

beforeEach(() => {
  // The deployed endpoint's model: validation checks that it is a gzip archive.
  store = new MemoryObjectStore().seed(DEPLOYED_ENDPOINT.modelDataUrl, gzipSync('model'));
  sagemaker = new ScriptedSageMaker().answerDescribe(REUSED, asyncEndpointDescription(REUSED));
});

function deps(overrides: Partial<ValidateAsyncRunDeps> = {}): ValidateAsyncRunDeps {
  return {
    store,
    host: sagemaker,
    artifactsBucket: BUCKET,
    region: 'us-east-1',
    allowFileUris: false,
    notificationTopics: TOPICS,
    // A role allowed everything: the role check has its own tests (reused-endpoint-role.test.ts).
    reusedEndpointRole: {
      roles: { executionRoleOf: () => Promise.resolve('arn:aws:iam::123456789012:role/team-endpoint') },
      simulator: { simulate: () => Promise.resolve({ status: 'simulated', denied: [] }) },
    },
    waitTimeoutSeconds: WAIT_TIMEOUT_SECONDS,
    pollSeconds: POLL_SECONDS,
    nowEpochMs: () => NOW_MS,
    logger: silentLogger,
    ...overrides,
  };
}

function validate(input: unknown, overrides: Partial<ValidateAsyncRunDeps> = {}): Promise<ValidatedAsyncRun> {
  return validateAsyncRun({ runId: RUN_ID, input }, deps(overrides));
}

function inputUris(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `s3://${BUCKET}/inputs/${String(i).padStart(4, '0')}.json`);
}

/** `inputUris(count)`, each stored, as validation checks that every input exists. */
function seededInputs(count: number): string[] {
  const uris = inputUris(count);
  for (const uri of uris) store.seed(uri, '{}');
  return uris;
}

/** The issues of the InvalidRunInputError the run is refused with, as one line each. */
async function refusal(run: Promise<unknown>): Promise<string[]> {
  const error = await run.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  if (!(error instanceof InvalidRunInputError))
    throw new Error(`expected InvalidRunInputError, got ${String(error)}`);
  return error.issues.map((issue) => `${issue.field}: got ${issue.given}, expected ${issue.expected}`);
}

/** The entry paths of an archive the state wrote, read back with `tar`. */
async function archivePaths(uri: string): Promise<string[]> {
  const body = store.objects.get(uri)?.body;
  if (body === undefined) throw new Error(`nothing stored at ${uri}`);
  const folder = await mkdtemp(join(tmpdir(), 'validate-async-run-test-'));
  try {
    const file = join(folder, 'model.tar.gz');
    await writeFile(file, body);
    const paths: string[] = [];
    await listTar({ file, onReadEntry: (entry) => paths.push(entry.path) });
    return paths;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

function manifestItems(): unknown {
  const manifest = store.objects.get(MANIFEST_URI);
  if (manifest === undefined) throw new Error(`no manifest at ${MANIFEST_URI}`);
  return JSON.parse(new TextDecoder().decode(manifest.body));
}

describe('validateAsyncRun: bounds checked before any walk', () => {
  it('fails when the input is nested 100,000 levels deep, naming the field at level 33', async () => {
    // Prepare: as the Lambda runtime hands it over, parsed.
    const input: unknown = JSON.parse(
      `{"model":{"environment":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
    );
    const objectsBefore = [...store.objects.keys()];

    // Act
    const issues = await refusal(validate(input));

    // Assert
    expect(issues).toEqual([
      `model.environment${'[0]'.repeat(30)}: got an array at nesting level 33, expected at most 32 ` +
        'levels of nested objects and arrays (no run input field is nested more than a few levels deep)',
    ]);
    expect([...store.objects.keys()]).toEqual(objectsBefore);
  });
});

describe("planAsyncRun: the state's planning, with nothing written", () => {
  it('returns the plan and the manifest items the state would write', async () => {
    // Arrange
    const inputs = seededInputs(2);
    const input = { endpointName: REUSED, inputs };

    // Act
    const planned = await planAsyncRun({ runId: RUN_ID, input }, deps());

    // Assert
    const validated = await validate(input);
    expect(planned).toEqual({
      plan: validated.plan,
      items: [
        { itemIndex: 0, inputLocation: inputs[0] },
        { itemIndex: 1, inputLocation: inputs[1] },
      ],
    });
  });

  it('writes no manifest, nor any other object', async () => {
    // Arrange
    const inputs = seededInputs(2);
    const before = [...store.objects.keys()];

    // Act
    await planAsyncRun({ runId: RUN_ID, input: { endpointName: REUSED, inputs } }, deps());

    // Assert
    expect([...store.objects.keys()]).toEqual(before);
  });

  it('refuses a missing input with the issues the state refuses it with', async () => {
    // Arrange
    const input = { endpointName: REUSED, inputs: inputUris(1) };

    // Act
    const planned = await refusal(planAsyncRun({ runId: RUN_ID, input }, deps()));

    // Assert
    expect(planned).toEqual([
      `inputs[0]: got "${input.inputs[0]}", expected an object that exists and that the workflow can read`,
    ]);
    expect(await refusal(validate(input))).toEqual(planned);
  });
});

describe('validateAsyncRun: the plan', () => {
  it('plans a reused endpoint with explicit inputs, the invocation settings and the run tags', async () => {
    // Arrange
    const inputs = seededInputs(2);

    // Act
    const { plan } = await validate({
      name: 'nightly scoring',
      endpointName: REUSED,
      inputs,
      contentType: 'text/csv',
      invocationTimeoutSeconds: 600,
      requestTtlSeconds: 3600,
    });

    // Assert
    expect(plan).toEqual({
      runId: RUN_ID,
      name: 'nightly scoring',
      runPrefixUri: `s3://${BUCKET}/runs/${RUN_ID}/`,
      manifestUri: MANIFEST_URI,
      itemCount: 2,
      batches: [{ batchIndex: 0, firstItemIndex: 0, itemCount: 2 }],
      batchConcurrency: 1,
      itemConcurrency: 2,
      invocation: {
        endpointName: REUSED,
        contentType: 'text/csv',
        invocationTimeoutSeconds: 600,
        requestTtlSeconds: 3600,
        waitTimeoutSeconds: WAIT_TIMEOUT_SECONDS,
      },
      endpoint: { action: 'reuse', endpointName: REUSED, variantName: 'AllTraffic', keepAfterRun: true },
      tags: { 'mso:project': 'model-serving-optimizer', 'mso:run-id': RUN_ID },
      plannedAtEpochMs: NOW_MS,
      // 2 inputs in 1 batch on a reused endpoint, each throttled 5 times, plus the final clean-up's
      // worst case: asyncHistoryEvents.
      budgets: { historyEvents: { worstCase: 331, budget: 24_000, quota: 25_000 } },
      // core/async/async-estimate.ts, tested there.
      estimate: {
        totalUsd: 0,
        durationSeconds: 600,
        worstDurationSeconds: WAIT_TIMEOUT_SECONDS,
        assumptions: [
          `endpoint ${REUSED} reused: $0 added (its instances are billed to its owner already)`,
          '2 input(s), 2 at a time, each taking its whole invocationTimeoutSeconds (600 s): 600 s (its capacity is unknown: every input in flight processed at once)',
        ],
      },
    });
  });

  it('writes the manifest with one item per input, in order', async () => {
    // Arrange
    const inputs = seededInputs(3);

    // Act
    await validate({ endpointName: REUSED, inputs });

    // Assert
    expect(manifestItems()).toEqual({
      runId: RUN_ID,
      items: [
        { itemIndex: 0, inputLocation: inputs[0] },
        { itemIndex: 1, inputLocation: inputs[1] },
        { itemIndex: 2, inputLocation: inputs[2] },
      ],
    });
    expect(store.objects.get(MANIFEST_URI)?.contentType).toBe('application/json');
  });

  it('takes every object under an input prefix, in key order, folder markers left out', async () => {
    // Arrange
    store
      .seed(`s3://${BUCKET}/inputs/batch-7/b.json`, '{}')
      .seed(`s3://${BUCKET}/inputs/batch-7/a.json`, '{}')
      .seed(`s3://${BUCKET}/inputs/batch-7/nested/`, '')
      .seed(`s3://${BUCKET}/inputs/batch-8/c.json`, '{}');

    // Act
    const { plan } = await validate({ endpointName: REUSED, inputPrefix: `s3://${BUCKET}/inputs/batch-7/` });

    // Assert
    expect(plan.itemCount).toBe(2);
    expect(manifestItems()).toEqual({
      runId: RUN_ID,
      items: [
        { itemIndex: 0, inputLocation: `s3://${BUCKET}/inputs/batch-7/a.json` },
        { itemIndex: 1, inputLocation: `s3://${BUCKET}/inputs/batch-7/b.json` },
      ],
    });
  });

  it('cuts the inputs into batches of 40, the last one holding the rest', async () => {
    // Act
    const { plan } = await validate({ endpointName: REUSED, inputs: seededInputs(95) });

    // Assert
    expect(plan.batches).toEqual([
      { batchIndex: 0, firstItemIndex: 0, itemCount: 40 },
      { batchIndex: 1, firstItemIndex: 40, itemCount: 40 },
      { batchIndex: 2, firstItemIndex: 80, itemCount: 15 },
    ]);
  });

  it.each([
    // [maxConcurrency, batches at once, inputs at once per batch]
    [1, 1, 1],
    [10, 1, 10],
    [40, 1, 40],
    [50, 2, 25],
    [100, 3, 33],
    [699, 18, 38],
    [1000, 18, 40],
  ])(
    'splits a concurrency of %i over 700 inputs into %i batch(es) of %i at once, never more in flight',
    async (maxConcurrency, batchConcurrency, itemConcurrency) => {
      // Act
      const { plan } = await validate({ endpointName: REUSED, inputs: seededInputs(700), maxConcurrency });

      // Assert
      expect(plan.batches).toHaveLength(18);
      expect({ batchConcurrency: plan.batchConcurrency, itemConcurrency: plan.itemConcurrency }).toEqual({
        batchConcurrency,
        itemConcurrency,
      });
      expect(plan.batchConcurrency * plan.itemConcurrency).toBeLessThanOrEqual(maxConcurrency);
    },
  );

  it('runs every batch at once, full, when the concurrency covers all the inputs', async () => {
    // Act: 100 inputs, 100 at once: 40 + 40 + 20, not 3 × 33.
    const { plan } = await validate({ endpointName: REUSED, inputs: seededInputs(100), maxConcurrency: 100 });

    // Assert
    expect({ batchConcurrency: plan.batchConcurrency, itemConcurrency: plan.itemConcurrency }).toEqual({
      batchConcurrency: 3,
      itemConcurrency: 40,
    });
  });

  it('sends a benchmark burst all at once, cycling through the inputs, whatever the concurrency', async () => {
    // Arrange
    const inputs = seededInputs(3);

    // Act
    const { plan } = await validate({
      endpointName: REUSED,
      inputs,
      maxConcurrency: 10,
      benchmark: { burstSize: 100 },
    });

    // Assert
    expect(plan.itemCount).toBe(100);
    expect(plan.benchmark).toEqual({ burstSize: 100 });
    expect({ batchConcurrency: plan.batchConcurrency, itemConcurrency: plan.itemConcurrency }).toEqual({
      batchConcurrency: 3,
      itemConcurrency: 40,
    });
    const { items } = manifestItems() as { items: { itemIndex: number; inputLocation: string }[] };
    expect(items.slice(0, 4).map((item) => item.inputLocation)).toEqual([
      inputs[0],
      inputs[1],
      inputs[2],
      inputs[0],
    ]);
    expect(items[99]).toEqual({ itemIndex: 99, inputLocation: inputs[0] });
  });

  it('names the deployed endpoint, its config and its model after the run, with the mso- prefix', async () => {
    // Act
    const { plan } = await validate({
      endpoint: {
        ...DEPLOYED_ENDPOINT,
        maxInstanceCount: 3,
        maxConcurrentInvocationsPerInstance: 4,
        targetBacklogPerInstance: 2,
        environment: { OMP_NUM_THREADS: '2' },
        keepAfterRun: true,
      },
      inputs: seededInputs(1),
    });

    // Assert
    expect(plan.endpoint).toEqual({
      action: 'deploy',
      endpointName: `mso-${RUN_TOKEN}-ep-async`,
      endpointConfigName: `mso-${RUN_TOKEN}-ec-async`,
      modelName: `mso-${RUN_TOKEN}-m-async`,
      variantName: 'AllTraffic',
      keepAfterRun: true,
      deploy: {
        image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.6.0-cpu-py312',
        modelDataUrl: `s3://${BUCKET}/models/cnn/model.tar.gz`,
        environment: { OMP_NUM_THREADS: '2' },
        instanceType: 'ml.c5.xlarge',
        maxInstanceCount: 3,
        maxConcurrentInvocationsPerInstance: 4,
        targetBacklogPerInstance: 2,
      },
    });
    expect(plan.invocation.endpointName).toBe(`mso-${RUN_TOKEN}-ep-async`);
  });

  it('serves a Hugging Face model.tar.gz from the Hugging Face DLC of its transformers and PyTorch versions', async () => {
    // Act
    const { plan } = await validate({
      endpoint: {
        ...DEPLOYED_ENDPOINT,
        framework: 'huggingface',
        frameworkVersion: '4.48.0',
        pytorchVersion: '2.3.0',
        instanceType: 'ml.g5.xlarge',
      },
      inputs: seededInputs(1),
    });

    // Assert
    expect(plan.endpoint.deploy?.image).toBe(
      '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-inference:2.3.0-transformers4.48.0-gpu-py311-cu121-ubuntu22.04',
    );
  });

  it('plans a Hub model without model data, its Hub settings first in the environment', async () => {
    // Act
    const { plan } = await validate({
      endpoint: { ...HUB_ENDPOINT, environment: { HF_TASK: 'sentiment-analysis', OMP_NUM_THREADS: '2' } },
      inputs: seededInputs(1),
    });

    // Assert
    expect(plan.endpoint.deploy).toEqual({
      image:
        '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-inference:2.6.0-transformers4.49.0-cpu-py312-ubuntu22.04',
      environment: {
        HF_MODEL_ID: 'distilbert/distilbert-base-uncased-finetuned-sst-2-english',
        HF_TASK: 'sentiment-analysis',
        OMP_NUM_THREADS: '2',
      },
      instanceType: 'ml.m5.xlarge',
      maxInstanceCount: 1,
      targetBacklogPerInstance: 5,
    });
  });

  it("tells an LLM container where its model.tar.gz is: TGI's HF_MODEL_ID is the model data's folder", async () => {
    // Act
    const { plan } = await validate({
      endpoint: {
        ...DEPLOYED_ENDPOINT,
        framework: 'hf-tgi',
        instanceType: 'ml.g5.xlarge',
        environment: { SM_NUM_GPUS: '1' },
      },
      inputs: seededInputs(1),
      generative: { format: 'tgi' },
    });

    // Assert
    expect(plan.endpoint.deploy?.environment).toEqual({ HF_MODEL_ID: '/opt/ml/model', SM_NUM_GPUS: '1' });
    expect(plan.endpoint.deploy?.image).toMatch(/huggingface-pytorch-tgi-inference:/);
  });

  it("packages a Hub model's inference code alone under code/, as the run's model data", async () => {
    // Arrange
    const codeUri = `s3://${BUCKET}/models/sst2/inference.py`;
    store.seed(codeUri, 'def model_fn(model_dir):\n    return None\n');

    // Act
    const { plan } = await validate({ endpoint: { ...HUB_ENDPOINT, codeUri }, inputs: seededInputs(1) });

    // Assert
    const modelDataUrl = `s3://${BUCKET}/runs/${RUN_ID}/async/model/model.tar.gz`;
    expect(plan.endpoint.deploy?.modelDataUrl).toBe(modelDataUrl);
    expect(plan.endpoint.deploy?.codeUri).toBe(codeUri);
    expect(await archivePaths(modelDataUrl)).toEqual(['code/', 'code/inference.py']);
  });

  it('names a single script given as codeUri as the module the container imports (SAGEMAKER_PROGRAM)', async () => {
    // Arrange
    const codeUri = `s3://${BUCKET}/models/sst2/handler.py`;
    store.seed(codeUri, 'def model_fn(model_dir):\n    return None\n');

    // Act
    const { plan } = await validate({ endpoint: { ...HUB_ENDPOINT, codeUri }, inputs: seededInputs(1) });

    // Assert
    expect(plan.endpoint.deploy?.environment).toEqual({
      HF_MODEL_ID: 'distilbert/distilbert-base-uncased-finetuned-sst-2-english',
      SAGEMAKER_PROGRAM: 'handler.py',
    });
  });

  it('refuses inference code that is not a .tar.gz archive, naming endpoint.codeUri, before writing the manifest', async () => {
    // Arrange
    const codeUri = `s3://${BUCKET}/models/sst2/code.tar.gz`;
    store.seed(codeUri, 'not an archive');

    // Act
    const issues = await refusal(
      validate({ endpoint: { ...HUB_ENDPOINT, codeUri }, inputs: seededInputs(1) }),
    );

    // Assert
    expect(issues).toEqual([
      expect.stringMatching(
        /^endpoint\.codeUri: got code\.tar\.gz, which could not be read as a \.tar\.gz \(.+\), expected a gzip-compressed tar archive$/,
      ),
    ]);
    expect(store.objects.has(MANIFEST_URI)).toBe(false);
  });

  it('writes no model data when planning a Hub model with code (the state writes it)', async () => {
    // Arrange
    const codeUri = `s3://${BUCKET}/models/sst2/inference.py`;
    store.seed(codeUri, 'def model_fn(model_dir):\n    return None\n');

    // Act
    await planAsyncRun(
      { runId: RUN_ID, input: { endpoint: { ...HUB_ENDPOINT, codeUri }, inputs: seededInputs(1) } },
      deps(),
    );

    // Assert
    expect(store.objects.has(`s3://${BUCKET}/runs/${RUN_ID}/async/model/model.tar.gz`)).toBe(false);
  });

  it('takes an explicit image over the table', async () => {
    // Arrange
    const image = '123456789012.dkr.ecr.us-east-1.amazonaws.com/my-onnx-server:1.0';

    // Act
    const { plan } = await validate({
      endpoint: { ...DEPLOYED_ENDPOINT, framework: 'onnx', image },
      inputs: seededInputs(1),
    });

    // Assert
    expect(plan.endpoint.deploy?.image).toBe(image);
  });

  it('uses the variant name a reused endpoint reports', async () => {
    // Arrange
    sagemaker.answerDescribe(REUSED, asyncEndpointDescription(REUSED, { variantName: 'blue' }));

    // Act
    const { plan } = await validate({ endpointName: REUSED, inputs: seededInputs(1) });

    // Assert
    expect(plan.endpoint.variantName).toBe('blue');
  });

  it('accepts file:// inputs in local mode', async () => {
    // Arrange
    store.seed('file:///tmp/mso/inputs/1.json', '{}');

    // Act
    const { plan } = await validate(
      { endpointName: REUSED, inputs: ['file:///tmp/mso/inputs/1.json'] },
      { allowFileUris: true },
    );

    // Assert
    expect(plan.itemCount).toBe(1);
  });
});

describe('validateAsyncRun: the initial endpoint phase', () => {
  it('starts a deployed endpoint creating, polled from the first interval, with a 45-minute deadline', async () => {
    // Act
    const { endpointState } = await validate({ endpoint: DEPLOYED_ENDPOINT, inputs: seededInputs(1) });

    // Assert
    expect(endpointState).toEqual({
      phase: AsyncEndpointPhases.creating,
      waitSeconds: POLL_SECONDS,
      deadlineEpochMs: NOW_MS + 45 * 60_000,
    });
  });

  it('starts a deployed benchmark endpoint creating too (it scales in once in service)', async () => {
    // Act
    const { endpointState } = await validate({
      endpoint: DEPLOYED_ENDPOINT,
      inputs: seededInputs(1),
      benchmark: { burstSize: 10 },
    });

    // Assert
    expect(endpointState.phase).toBe(AsyncEndpointPhases.creating);
  });

  it('starts a reused endpoint ready', async () => {
    // Act
    const { endpointState } = await validate({ endpointName: REUSED, inputs: seededInputs(1) });

    // Assert
    expect(endpointState).toEqual({
      phase: AsyncEndpointPhases.ready,
      waitSeconds: 0,
      deadlineEpochMs: NOW_MS,
    });
  });

  it('starts a reused benchmark endpoint scaling in, with a one-hour deadline', async () => {
    // Act
    const { endpointState } = await validate({
      endpointName: REUSED,
      inputs: seededInputs(1),
      benchmark: { burstSize: 10 },
    });

    // Assert
    expect(endpointState).toEqual({
      phase: AsyncEndpointPhases.scalingIn,
      waitSeconds: POLL_SECONDS,
      deadlineEpochMs: NOW_MS + 60 * 60_000,
    });
  });
});

describe('validateAsyncRun: refusals', () => {
  it('fails when a file:// URI is given outside local mode', async () => {
    // Act
    const issues = await refusal(validate({ endpointName: REUSED, inputs: ['file:///tmp/in/1.json'] }));

    // Assert
    expect(issues).toEqual([
      'inputs[0]: got "file:///tmp/in/1.json", expected an s3:// URI (file:/// is for local mode only)',
    ]);
    expect(store.objects.has(MANIFEST_URI)).toBe(false);
  });

  it('fails when URIs lie outside the artifacts bucket prefixes, naming each field', async () => {
    // Arrange
    store.seed(`s3://${BUCKET}/inputs/ok.json`, '{}');

    // Act
    const issues = await refusal(
      validate({
        endpoint: { ...DEPLOYED_ENDPOINT, modelDataUrl: 's3://someone-else/models/model.tar.gz' },
        inputs: [`s3://${BUCKET}/inputs/ok.json`, `s3://${BUCKET}/elsewhere/1.json`],
      }),
    );

    // Assert
    const expected =
      `expected a URI under s3://${BUCKET}/models/, s3://${BUCKET}/inputs/, s3://${BUCKET}/runs/ ` +
      '(the SageMaker execution role reads only those; upload there, see docs/deploying.md)';
    expect(issues).toEqual([
      `endpoint.modelDataUrl: got "s3://someone-else/models/model.tar.gz", ${expected}`,
      `inputs[1]: got "s3://${BUCKET}/elsewhere/1.json", ${expected}`,
    ]);
  });

  it('fails when the input prefix lies outside the artifacts bucket prefixes', async () => {
    // Act
    const issues = await refusal(validate({ endpointName: REUSED, inputPrefix: `s3://${BUCKET}/` }));

    // Assert
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^inputPrefix: got "s3:\/\/mso-artifacts\/", expected a URI under /);
  });

  it('fails when nothing lies under the input prefix', async () => {
    // Arrange
    store.seed(`s3://${BUCKET}/inputs/other/1.json`, '{}');

    // Act
    const issues = await refusal(
      validate({ endpointName: REUSED, inputPrefix: `s3://${BUCKET}/inputs/empty/` }),
    );

    // Assert
    expect(issues).toEqual([
      `inputPrefix: got "s3://${BUCKET}/inputs/empty/", expected a prefix with at least one object under it; found none`,
    ]);
  });

  it('fails when more than 700 objects lie under the input prefix', async () => {
    // Arrange
    for (const uri of inputUris(701)) store.seed(uri, '{}');

    // Act
    const issues = await refusal(validate({ endpointName: REUSED, inputPrefix: `s3://${BUCKET}/inputs/` }));

    // Assert
    expect(issues).toEqual([
      `inputPrefix: got "s3://${BUCKET}/inputs/" (more than 700 objects), expected at most 700 objects (split them under several prefixes, one run each)`,
    ]);
    expect(store.objects.has(MANIFEST_URI)).toBe(false);
  });

  it('accepts exactly 700 objects under the input prefix', async () => {
    // Arrange
    for (const uri of inputUris(700)) store.seed(uri, '{}');

    // Act
    const { plan } = await validate({ endpointName: REUSED, inputPrefix: `s3://${BUCKET}/inputs/` });

    // Assert
    expect(plan.itemCount).toBe(700);
  });

  it('fails when the queue TTL plus the invocation timeout reach the deployed wait timeout', async () => {
    // Act: 3000 + 600 = 3600 s, not under a wait of 3600 s.
    const issues = await refusal(
      validate(
        {
          endpointName: REUSED,
          inputs: seededInputs(1),
          requestTtlSeconds: 3000,
          invocationTimeoutSeconds: 600,
        },
        { waitTimeoutSeconds: 3600 },
      ),
    );

    // Assert
    expect(issues).toEqual([
      "requestTtlSeconds: got 3000, expected at most 2999 with invocationTimeoutSeconds 600: queue time plus processing (3000 + 600 = 3600 s) must stay under the deployed wait timeout of 3600 s (the stack's asyncInference.waitTimeout)",
    ]);
  });

  it('accepts a queue TTL plus invocation timeout one second under the wait timeout', async () => {
    // Act
    const run = validate(
      {
        endpointName: REUSED,
        inputs: seededInputs(1),
        requestTtlSeconds: 2999,
        invocationTimeoutSeconds: 600,
      },
      { waitTimeoutSeconds: 3600 },
    );

    // Assert
    await expect(run).resolves.toBeDefined();
  });

  it("fails when SageMaker's default queue TTL of 6 hours cannot fit under a shorter deployed wait", async () => {
    // Act
    const issues = await refusal(
      validate({ endpointName: REUSED, inputs: seededInputs(1) }, { waitTimeoutSeconds: 7200 }),
    );

    // Assert
    expect(issues[0]).toMatch(
      /^requestTtlSeconds: got 21600, expected at most 6299 with invocationTimeoutSeconds 900:/,
    );
  });

  it('fails on the invocation timeout when not even the minimum queue TTL fits under the wait', async () => {
    // Act: 60 + 3600 ≥ 3600: no TTL of at least 60 s fits, the invocation timeout must shrink.
    const issues = await refusal(
      validate(
        {
          endpointName: REUSED,
          inputs: seededInputs(1),
          requestTtlSeconds: 60,
          invocationTimeoutSeconds: 3600,
        },
        { waitTimeoutSeconds: 3600 },
      ),
    );

    // Assert
    expect(issues).toEqual([
      "invocationTimeoutSeconds: got 3600, expected at most 3539 with requestTtlSeconds 60 (its minimum): queue time plus processing (60 + 3600 = 3660 s) must stay under the deployed wait timeout of 3600 s (the stack's asyncInference.waitTimeout)",
    ]);
  });

  it('fails when the reused endpoint does not exist', async () => {
    // Arrange
    sagemaker.answerDescribe(REUSED, undefined);

    // Act
    const issues = await refusal(validate({ endpointName: REUSED, inputs: seededInputs(1) }));

    // Assert
    expect(issues).toEqual([
      `endpointName: got "${REUSED}" (no endpoint has that name), expected an existing endpoint`,
    ]);
    expect(store.objects.has(MANIFEST_URI)).toBe(false);
  });

  it('fails when the reused endpoint failed, quoting its reason', async () => {
    // Arrange
    sagemaker.answerDescribe(
      REUSED,
      asyncEndpointDescription(REUSED, { status: 'Failed', failureReason: 'Image pull failed' }),
    );

    // Act
    const issues = await refusal(validate({ endpointName: REUSED, inputs: seededInputs(1) }));

    // Assert
    expect(issues).toEqual([
      `endpointName: got "${REUSED}" (it is Failed: Image pull failed), expected an endpoint that takes requests (InService, or Updating/SystemUpdating/RollingBack)`,
    ]);
  });

  it.each([['OutOfService'], ['Creating'], ['Deleting']])(
    'fails when the reused endpoint is %s: it takes no request',
    async (status) => {
      // Arrange
      sagemaker.answerDescribe(
        REUSED,
        asyncEndpointDescription(REUSED, { status: status as 'OutOfService' | 'Creating' | 'Deleting' }),
      );

      // Act
      const issues = await refusal(validate({ endpointName: REUSED, inputs: seededInputs(1) }));

      // Assert
      expect(issues).toEqual([
        `endpointName: got "${REUSED}" (it is ${status}), expected an endpoint that takes requests (InService, or Updating/SystemUpdating/RollingBack)`,
      ]);
    },
  );

  it('accepts a reused endpoint that is updating: it still serves', async () => {
    // Arrange
    sagemaker.answerDescribe(REUSED, asyncEndpointDescription(REUSED, { status: 'Updating' }));

    // Act
    const { plan } = await validate({ endpointName: REUSED, inputs: seededInputs(1) });

    // Assert
    expect(plan.endpoint.action).toBe('reuse');
  });

  it('plans a generative run with its answer format, for the batches to count tokens', async () => {
    // Arrange: the default description writes results under the artifacts bucket's runs/.
    sagemaker.answerDescribe(REUSED, asyncEndpointDescription(REUSED));

    // Act
    const { plan } = await validate({
      endpointName: REUSED,
      inputs: seededInputs(1),
      generative: { format: 'openai' },
    });

    // Assert
    expect(plan.generative).toEqual({ format: 'openai' });
  });

  it('fails when a generative run reuses an endpoint whose results the run cannot read', async () => {
    // Arrange
    sagemaker.answerDescribe(
      REUSED,
      asyncEndpointDescription(REUSED, { asyncInference: { ...TOPICS, s3OutputPath: 's3://theirs/out/' } }),
    );

    // Act
    const issues = await refusal(
      validate({ endpointName: REUSED, inputs: seededInputs(1), generative: { format: 'tgi' } }),
    );

    // Assert
    expect(issues).toEqual([
      `generative: got endpoint ${REUSED} writes its results to s3://theirs/out/, expected results under s3://${BUCKET}/runs/ ` +
        `(the run's Lambdas read results there to count their tokens): set the endpoint config's S3OutputPath under that prefix, ` +
        'deploy the endpoint with the run ("endpoint"), or remove "generative"',
    ]);
  });

  it('fails when the reused endpoint is not asynchronous', async () => {
    // Arrange
    const { asyncInference: _none, ...realTime } = asyncEndpointDescription(REUSED);
    sagemaker.answerDescribe(REUSED, realTime);

    // Act
    const issues = await refusal(validate({ endpointName: REUSED, inputs: seededInputs(1) }));

    // Assert
    expect(issues).toEqual([
      `endpointName: got "${REUSED}" (a real-time or serverless endpoint), expected an asynchronous endpoint (AsyncInferenceConfig in its endpoint config)`,
    ]);
  });

  it('fails when the reused endpoint publishes to other topics, naming both sets', async () => {
    // Arrange
    sagemaker.answerDescribe(
      REUSED,
      asyncEndpointDescription(REUSED, {
        asyncInference: {
          s3OutputPath: 's3://theirs/out/',
          successTopicArn: 'arn:aws:sns:us-east-1:123456789012:their-success',
        },
      }),
    );

    // Act
    const issues = await refusal(validate({ endpointName: REUSED, inputs: seededInputs(1) }));

    // Assert
    expect(issues).toEqual([
      `endpointName: got "${REUSED}" (SuccessTopic arn:aws:sns:us-east-1:123456789012:their-success, ErrorTopic none), ` +
        `expected an endpoint whose NotificationConfig publishes to SuccessTopic ${TOPICS.successTopicArn} and ErrorTopic ${TOPICS.errorTopicArn} (this stack's topics, which resume the waiting tasks)`,
    ]);
  });

  it('fails when the reused endpoint publishes errors to another topic only', async () => {
    // Arrange
    sagemaker.answerDescribe(
      REUSED,
      asyncEndpointDescription(REUSED, {
        asyncInference: { ...TOPICS, errorTopicArn: 'arn:aws:sns:us-east-1:123456789012:their-errors' },
      }),
    );

    // Act
    const issues = await refusal(validate({ endpointName: REUSED, inputs: seededInputs(1) }));

    // Assert
    expect(issues[0]).toContain('ErrorTopic arn:aws:sns:us-east-1:123456789012:their-errors)');
  });

  it('fails when no image serves the framework in the region, naming endpoint, before any read', async () => {
    // Prepare: an empty bucket: object checks run first would add their own issues.
    const empty = new MemoryObjectStore();

    // Act
    const issues = await refusal(
      validate(
        { endpoint: { ...DEPLOYED_ENDPOINT, framework: 'onnx' }, inputs: seededInputs(1) },
        { store: empty },
      ),
    );

    // Assert
    expect(issues).toEqual([
      expect.stringMatching(
        /^endpoint: got \{"framework":"onnx","instanceType":"ml\.c5\.xlarge"\}, expected No serving image for onnx uncompiled on ml\.c5\.xlarge in us-east-1/,
      ),
    ]);
    expect(store.objects.has(MANIFEST_URI)).toBe(false);
    expect(sagemaker.calls).toEqual([]);
  });

  it('fails with InvalidRunInputError naming the field when the input does not parse', async () => {
    // Act
    const issues = await refusal(
      validate({ endpointName: REUSED, inputs: seededInputs(1), maxConcurrency: 0 }),
    );

    // Assert
    expect(issues).toEqual(['maxConcurrency: got 0, expected a number of at least 1']);
  });
});

describe('validateAsyncRun: every object the run reads, before anything is created', () => {
  const MISSING = 'an object that exists and that the workflow can read';
  const MODEL_URL = DEPLOYED_ENDPOINT.modelDataUrl;
  const NOT_GZIP =
    'a gzip-compressed tar archive (SageMaker unpacks ModelDataUrl as one): create it with tar -czf model.tar.gz …';
  const NOT_TAR_GZ =
    'a model archive whose name ends with ".tar.gz" (SageMaker\'s ModelDataUrl must be one gzip-compressed ' +
    'tar archive); package the model with tar -czf model.tar.gz, or let an optimization run package it';
  const PLAIN_KEY =
    'a key without "." or ".." segments, empty segments ("//"), backslashes or control characters ' +
    '(S3 keeps such a key as written while file systems and some clients resolve it as a path, so another ' +
    'object could be read)';

  type Case = [what: string, prepare: () => Record<string, unknown>, issues: InputIssue[]];

  it.each<Case>([
    [
      'a missing input object',
      () => ({
        endpoint: DEPLOYED_ENDPOINT,
        inputs: [...seededInputs(2), `s3://${BUCKET}/inputs/gone.json`],
      }),
      [{ field: 'inputs[2]', given: `"s3://${BUCKET}/inputs/gone.json"`, expected: MISSING }],
    ],
    [
      'a ".." segment in an input key',
      () => ({ endpoint: DEPLOYED_ENDPOINT, inputs: [`s3://${BUCKET}/inputs/../runs/x/manifest.json`] }),
      [
        {
          field: 'inputs[0]',
          given: `"s3://${BUCKET}/inputs/../runs/x/manifest.json" (a ".." segment)`,
          expected: `${PLAIN_KEY}, e.g. "s3://${BUCKET}/runs/x/manifest.json"`,
        },
      ],
    ],
    [
      'a missing model data URL',
      () => ({
        endpoint: { ...DEPLOYED_ENDPOINT, modelDataUrl: `s3://${BUCKET}/models/gone/model.tar.gz` },
        inputs: seededInputs(1),
      }),
      [
        {
          field: 'endpoint.modelDataUrl',
          given: `"s3://${BUCKET}/models/gone/model.tar.gz"`,
          expected: MISSING,
        },
      ],
    ],
    [
      'a model data URL that is not a .tar.gz',
      () => {
        store.seed(`s3://${BUCKET}/models/cnn/model.onnx`, 'onnx');
        return {
          endpoint: { ...DEPLOYED_ENDPOINT, modelDataUrl: `s3://${BUCKET}/models/cnn/model.onnx` },
          inputs: seededInputs(1),
        };
      },
      [
        {
          field: 'endpoint.modelDataUrl',
          given: `"s3://${BUCKET}/models/cnn/model.onnx"`,
          expected: NOT_TAR_GZ,
        },
      ],
    ],
    [
      'a model data URL that is not gzip-compressed',
      () => {
        store.seed(MODEL_URL, 'model.onnx');
        return { endpoint: DEPLOYED_ENDPOINT, inputs: seededInputs(1) };
      },
      [
        {
          field: 'endpoint.modelDataUrl',
          given: `"${MODEL_URL}" (it starts with the bytes 6d 6f, not gzip's 1f 8b)`,
          expected: NOT_GZIP,
        },
      ],
    ],
    [
      'every problem at once: a missing model, a "//" key, a missing input',
      () => ({
        endpoint: { ...DEPLOYED_ENDPOINT, modelDataUrl: `s3://${BUCKET}/models/gone/model.tar.gz` },
        inputs: [`s3://${BUCKET}/inputs//1.json`, `s3://${BUCKET}/inputs/gone.json`],
      }),
      [
        {
          field: 'inputs[0]',
          given: `"s3://${BUCKET}/inputs//1.json" (an empty segment ("//", or "/" at the start or end of the key))`,
          expected: `${PLAIN_KEY}, e.g. "s3://${BUCKET}/inputs/1.json"`,
        },
        {
          field: 'endpoint.modelDataUrl',
          given: `"s3://${BUCKET}/models/gone/model.tar.gz"`,
          expected: MISSING,
        },
        { field: 'inputs[1]', given: `"s3://${BUCKET}/inputs/gone.json"`, expected: MISSING },
      ],
    ],
  ])('refuses %s, naming the field, and creates nothing', async (_what, prepare, issues) => {
    // Prepare
    const input = prepare();

    // Act
    const error = await validate(input).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );

    // Assert
    expect(error).toBeInstanceOf(InvalidRunInputError);
    expect((error as InvalidRunInputError).issues).toEqual(issues);
    expect(store.objects.has(MANIFEST_URI)).toBe(false);
    expect(sagemaker.calls).toEqual([]);
  });

  it('refuses a reused endpoint run whose input is missing, before describing the endpoint', async () => {
    // Act
    const issues = await refusal(
      validate({ endpointName: REUSED, inputs: [`s3://${BUCKET}/inputs/gone.json`] }),
    );

    // Assert
    expect(issues).toEqual([`inputs[0]: got "s3://${BUCKET}/inputs/gone.json", expected ${MISSING}`]);
    expect(sagemaker.calls).toEqual([]);
  });

  it('lists the first 20 of 30 missing inputs, then counts the other 10', async () => {
    // Prepare: 670 of 700 inputs stored; every 23rd one missing.
    const inputs = inputUris(700);
    const missing = inputs.filter((_, index) => index % 23 === 0 && index < 23 * 30);
    for (const uri of inputs) if (!missing.includes(uri)) store.seed(uri, '{}');

    // Act
    const issues = await refusal(validate({ endpoint: DEPLOYED_ENDPOINT, inputs }));

    // Assert
    expect(missing).toHaveLength(30);
    expect(issues).toEqual([
      ...missing
        .slice(0, 20)
        .map((uri) => `inputs[${inputs.indexOf(uri)}]: got ${JSON.stringify(uri)}, expected ${MISSING}`),
      'inputs[460] … inputs[667]: got 10 more problem(s) like the ones above, not listed one by one, ' +
        'expected the same fix for each: correct the ones listed, then run again to see any left',
    ]);
    expect(sagemaker.calls).toEqual([]);
  });

  it('refuses a missing model and an empty input prefix in one error', async () => {
    // Act
    const issues = await refusal(
      validate({
        endpoint: { ...DEPLOYED_ENDPOINT, modelDataUrl: `s3://${BUCKET}/models/gone/model.tar.gz` },
        inputPrefix: `s3://${BUCKET}/inputs/empty/`,
      }),
    );

    // Assert
    expect(issues).toEqual([
      `endpoint.modelDataUrl: got "s3://${BUCKET}/models/gone/model.tar.gz", expected ${MISSING}`,
      `inputPrefix: got "s3://${BUCKET}/inputs/empty/", expected a prefix with at least one object under it; found none`,
    ]);
  });

  it("refuses a Hub model's missing inference code, naming endpoint.codeUri", async () => {
    // Act
    const issues = await refusal(
      validate({
        endpoint: { ...HUB_ENDPOINT, codeUri: `s3://${BUCKET}/models/sst2/code.tar.gz` },
        inputs: seededInputs(1),
      }),
    );

    // Assert
    expect(issues).toEqual([
      `endpoint.codeUri: got "s3://${BUCKET}/models/sst2/code.tar.gz", expected ${MISSING}`,
    ]);
    expect(sagemaker.calls).toEqual([]);
  });

  it('refuses inference code outside the prefixes SageMaker reads, naming endpoint.codeUri', async () => {
    // Act
    const issues = await refusal(
      validate({
        endpoint: { ...HUB_ENDPOINT, codeUri: 's3://elsewhere/code.tar.gz' },
        inputs: seededInputs(1),
      }),
    );

    // Assert
    expect(issues).toEqual([
      `endpoint.codeUri: got "s3://elsewhere/code.tar.gz", expected a URI under s3://${BUCKET}/models/, s3://${BUCKET}/inputs/, s3://${BUCKET}/runs/ (the SageMaker execution role reads only those; upload there, see docs/deploying.md)`,
    ]);
  });

  it('refuses a key under the input prefix that is not a plain name', async () => {
    // Prepare
    store.seed(`s3://${BUCKET}/inputs/batch/a.json`, '{}').seed(`s3://${BUCKET}/inputs/batch/./b.json`, '{}');

    // Act
    const issues = await refusal(
      validate({ endpointName: REUSED, inputPrefix: `s3://${BUCKET}/inputs/batch/` }),
    );

    // Assert
    expect(issues).toEqual([
      `inputPrefix: got "s3://${BUCKET}/inputs/batch/./b.json" (a "." segment), expected ${PLAIN_KEY}, e.g. "s3://${BUCKET}/inputs/batch/b.json"`,
    ]);
  });
});
