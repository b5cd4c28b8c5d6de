import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../../core/contracts/errors.js';
import type { RunPlan } from '../../../../core/contracts/optimization-state.js';
import { deployCandidate } from '../../../../core/steps/optimization/deploy-candidate.js';
import type { ModelSpec } from '../../../../core/ports/index.js';
import { validateAndPlan } from '../../../../core/steps/optimization/validate-and-plan.js';
import { FakeSageMaker } from '../../../support/fake-sagemaker.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';

const PROMPT_URI = 's3://mso-artifacts/models/llm/prompt.json';
const ARCHIVE_URI = 's3://mso-artifacts/models/llm/model.tar.gz';
const GENERATE = '{"inputs":"Hello","parameters":{"max_new_tokens":32},"stream":true}';

function input(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: { framework: 'djl-lmi', hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct', revision: 'main' } },
    payload: { uri: PROMPT_URI },
    candidates: [
      { id: 'g5', instanceType: 'ml.g5.xlarge', environment: { OPTION_MAX_ROLLING_BATCH_SIZE: '8' } },
      { id: 'inf2', instanceType: 'ml.inf2.xlarge', environment: { OPTION_TENSOR_PARALLEL_DEGREE: '2' } },
    ],
    loadPlan: { steps: [1], warmupSeconds: 0, stepDurationSeconds: 10, response: { mode: 'stream' } },
    sla: { ttftP95Ms: 1000 },
    ...overrides,
  };
}

function plan(document: unknown, prompt = GENERATE): Promise<RunPlan> {
  const store = new MemoryObjectStore()
    .seed(PROMPT_URI, prompt)
    .seed(ARCHIVE_URI, new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]));
  return validateAndPlan(
    { runId: 'llm-run', input: document },
    {
      store,
      artifactsBucket: 'mso-artifacts',
      allowFileUris: false,
      logger: silentLogger,
      servingRegion: 'us-east-1',
    },
  );
}

async function planIssues(document: unknown, prompt: string): Promise<InvalidRunInputError['issues']> {
  const error = await plan(document, prompt).catch((e: unknown) => e);
  if (error instanceof InvalidRunInputError) return error.issues;
  throw new Error(`expected the plan to be refused, got ${String(error)}`);
}

/** Deploys one candidate of the plan and returns the CreateModel request SageMaker received. */
async function createdModel(runPlan: RunPlan, candidateId: string): Promise<ModelSpec | undefined> {
  const candidate = runPlan.candidates.find((c) => c.id === candidateId);
  if (candidate === undefined) throw new Error(`no candidate ${candidateId} in the plan`);
  const host = new FakeSageMaker();
  await deployCandidate(
    {
      plan: runPlan,
      candidate,
      packagedModel: {
        ...(runPlan.model?.packagedUri === undefined ? {} : { modelDataUrl: runPlan.model.packagedUri }),
        reused: false,
      },
      compilations: [],
    },
    {
      host,
      region: 'us-east-1',
      logger: silentLogger,
      pollSeconds: 30,
      maxPollSeconds: 120,
      nowEpochMs: () => 0,
      loadStartDelaySeconds: 0,
    },
  );
  return host.models.get(candidate.modelName);
}

describe('validateAndPlan and deployCandidate: a model in an LLM container', () => {
  it('plans the container’s default stream format into the load plan', async () => {
    // Act
    const runPlan = await plan(input());

    // Assert
    expect(runPlan.loadPlan.response).toEqual({ mode: 'stream', format: 'lmi-jsonlines' });
  });

  it('deploys a Hub model to LMI on a GPU: its GPU image, HF_MODEL_ID and revision, no model data', async () => {
    // Prepare
    const runPlan = await plan(input());

    // Act
    const model = await createdModel(runPlan, 'g5');

    // Assert
    expect({
      image: model?.image,
      modelDataUrl: model?.modelDataUrl,
      environment: model?.environment,
    }).toEqual({
      image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.36.0-lmi27.0.0-cu130',
      modelDataUrl: undefined,
      environment: {
        HF_MODEL_ID: 'Qwen/Qwen2.5-1.5B-Instruct',
        OPTION_REVISION: 'main',
        OPTION_MAX_ROLLING_BATCH_SIZE: '8',
      },
    });
  });

  it('deploys the same model to the LMI Neuron image on Inferentia2', async () => {
    // Prepare
    const runPlan = await plan(input());

    // Act
    const model = await createdModel(runPlan, 'inf2');

    // Assert
    expect({ image: model?.image, environment: model?.environment }).toEqual({
      image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.29.0-neuronx-sdk2.19.1',
      environment: {
        HF_MODEL_ID: 'Qwen/Qwen2.5-1.5B-Instruct',
        OPTION_REVISION: 'main',
        OPTION_TENSOR_PARALLEL_DEGREE: '2',
      },
    });
  });

  it('deploys a model.tar.gz to TGI with HF_MODEL_ID pointing at /opt/ml/model', async () => {
    // Prepare
    const runPlan = await plan(
      input({
        model: { framework: 'hf-tgi', artifactUri: ARCHIVE_URI },
        candidates: [{ id: 'g5', instanceType: 'ml.g5.xlarge' }],
      }),
    );

    // Act
    const model = await createdModel(runPlan, 'g5');

    // Assert
    expect({
      image: model?.image,
      modelDataUrl: model?.modelDataUrl,
      environment: model?.environment,
    }).toEqual({
      image:
        '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:2.7.0-tgi3.3.6-gpu-py311-cu124-ubuntu22.04',
      modelDataUrl: ARCHIVE_URI,
      environment: { HF_MODEL_ID: '/opt/ml/model' },
    });
  });

  it('deploys a Hub model to vLLM with SM_VLLM_MODEL, the variable its entrypoint turns into --model', async () => {
    // Prepare
    const runPlan = await plan(
      input({
        model: { framework: 'vllm', hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' } },
        candidates: [{ id: 'g5', instanceType: 'ml.g5.xlarge' }],
      }),
      '{"messages":[{"role":"user","content":"Hello"}],"stream":true,"stream_options":{"include_usage":true}}',
    );

    // Act
    const model = await createdModel(runPlan, 'g5');

    // Assert
    expect(model?.environment).toEqual({ SM_VLLM_MODEL: 'Qwen/Qwen2.5-1.5B-Instruct' });
  });

  it('refuses a payload without "stream": true, which the container would answer with one JSON body', async () => {
    // Act
    const issues = await planIssues(input(), '{"inputs":"Hello","parameters":{"max_new_tokens":32}}');

    // Assert
    expect(issues).toEqual([
      {
        field: 'payload.uri',
        given: 'a JSON object with "inputs", "parameters"',
        expected:
          '"stream": true at the request\'s top level: without it the container answers with one JSON body, which the lmi-jsonlines stream parser cannot read',
      },
    ]);
  });

  it('warns, without refusing, when an OpenAI stream asks for no usage figures', async () => {
    // Act
    const runPlan = await plan(
      input({
        model: { framework: 'vllm', hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' } },
        candidates: [{ id: 'g5', instanceType: 'ml.g5.xlarge' }],
      }),
      '{"messages":[{"role":"user","content":"Hello"}],"stream":true}',
    );

    // Assert: the payload's warnings (the memory check warns too: this Hub model's size is not given)
    expect(runPlan.warnings?.filter((warning) => warning.startsWith('payload.uri'))).toEqual([
      'payload.uri asks for no usage figures ("stream_options": { "include_usage": true }): output tokens are counted ' +
        'one per non-empty chunk rather than taken from the server, and a chunk of several tokens counts once',
    ]);
  });
});
