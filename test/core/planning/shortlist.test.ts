import { describe, expect, it } from '@jest/globals';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { expandShortlist } from '../../../core/planning/shortlist.js';

/** An ONNX model of `parameters` fp32 parameters, its candidates a shortlist request. */
function shortlistInput(overrides: {
  shortlist: unknown;
  parameters?: number;
  targets?: string[];
  pricing?: Record<string, number>;
  image?: string;
}) {
  return runInputSchema.parse({
    model: {
      artifactUri: 's3://bucket/models/cnn/model.onnx',
      framework: 'onnx',
      inputShape: { input: [1, 3, 32, 32] },
      size: { parameters: overrides.parameters ?? 1e6, dtype: 'fp32' },
      ...(overrides.image === undefined ? {} : { image: overrides.image }),
    },
    payload: { uri: 's3://bucket/models/cnn/payload.bin' },
    compilation: { targets: overrides.targets ?? [] },
    candidates: { shortlist: overrides.shortlist },
    pricing: { usdPerHour: overrides.pricing ?? {} },
    loadPlan: { model: 'closed', steps: [1], warmupSeconds: 10, stepDurationSeconds: 60 },
    sla: { p95LatencyMs: 100 },
  });
}

function chosenTypes(outcome: ReturnType<typeof expandShortlist>): string[] {
  return outcome.input.candidates.map((candidate) =>
    'instanceType' in candidate ? candidate.instanceType : '',
  );
}

describe('expandShortlist', () => {
  it('leaves an input without a shortlist as it is', () => {
    // Prepare
    const input = runInputSchema.parse({
      model: { artifactUri: 's3://bucket/models/cnn/model.onnx', framework: 'onnx' },
      payload: { uri: 's3://bucket/models/cnn/payload.bin' },
      candidates: [{ instanceType: 'ml.c5.large' }],
      loadPlan: { model: 'closed', steps: [1], warmupSeconds: 10, stepDurationSeconds: 60 },
      sla: { p95LatencyMs: 100 },
    });

    // Act
    const outcome = expandShortlist(input, {});

    // Assert
    expect([outcome.input, outcome.shortlist, outcome.issues]).toEqual([input, undefined, []]);
  });

  it('picks the cheapest CPU type of each family first, Graviton included, cheapest first', () => {
    // Prepare
    const input = shortlistInput({ shortlist: { max: 4, kinds: ['cpu'] } });

    // Act
    const outcome = expandShortlist(input, {});

    // Assert
    expect(chosenTypes(outcome)).toEqual(['ml.c6g.large', 'ml.m6g.large', 'ml.c5.large', 'ml.m5.large']);
  });

  it('fills the list with the next cheapest types once every family has one', () => {
    // Prepare
    const input = shortlistInput({ shortlist: { max: 6, kinds: ['cpu'] } });

    // Act
    const outcome = expandShortlist(input, {});

    // Assert
    expect(chosenTypes(outcome)).toEqual([
      'ml.c6g.large',
      'ml.m6g.large',
      'ml.c5.large',
      'ml.m5.large',
      'ml.c6g.xlarge',
      'ml.c7i.xlarge',
    ]);
  });

  it('takes the cheapest of each kind asked for before filling with cheaper families', () => {
    // Prepare
    const input = shortlistInput({ shortlist: { max: 2, kinds: ['cpu', 'gpu'] } });

    // Act
    const outcome = expandShortlist(input, {});

    // Assert
    expect(chosenTypes(outcome)).toEqual(['ml.c6g.large', 'ml.g4dn.xlarge']);
  });

  it('leaves burstable types out, and says so', () => {
    // Prepare
    const input = shortlistInput({ shortlist: { max: 6, kinds: ['cpu'] } });

    // Act
    const outcome = expandShortlist(input, {});

    // Assert
    expect(outcome.shortlist?.leftOut).toContainEqual({
      reason: 'burstable: under a sustained load it runs at its CPU-credit baseline, not at its size',
      families: ['t2'],
    });
  });

  it('leaves types without a price out, grouped by family, and takes one the input prices', () => {
    // Prepare
    const input = shortlistInput({
      shortlist: { max: 1, kinds: ['cpu'] },
      pricing: { 'ml.c7g.large': 0.01 },
    });

    // Act
    const outcome = expandShortlist(input, {});

    // Assert
    const noPrice = outcome.shortlist?.leftOut.find((exclusion) => exclusion.reason.startsWith('no price'));
    expect([
      chosenTypes(outcome),
      noPrice?.families.includes('m7i'),
      noPrice?.families.includes('c7g'),
    ]).toEqual([['ml.c7g.large'], true, false]);
  });

  it('leaves out a priced type whose accelerator no source gives, rather than pick one that may not hold the model', () => {
    // Prepare: ml.p6e-gb200.36xlarge is priced by the input, and the instance table knows none of its facts.
    const input = shortlistInput({
      shortlist: { max: 6, kinds: ['gpu'] },
      pricing: { 'ml.p6e-gb200.36xlarge': 90 },
    });

    // Act
    const outcome = expandShortlist(input, {});

    // Assert
    expect([chosenTypes(outcome).includes('ml.p6e-gb200.36xlarge'), outcome.shortlist?.leftOut]).toEqual([
      false,
      expect.arrayContaining([
        { reason: 'its accelerator is unknown to the instance table', families: ['p6e-gb200'] },
      ]),
    ]);
  });

  it('leaves the types whose memory cannot hold the model out', () => {
    // Prepare: 6e9 fp32 parameters are 22.4 GiB, more than a g4dn's T4 (16 GiB), an m5.xlarge or the
    // only priced c7i (ml.c7i.xlarge, 8 GiB).
    const input = shortlistInput({ shortlist: { max: 3, kinds: ['cpu', 'gpu'] }, parameters: 6e9 });

    // Act
    const outcome = expandShortlist(input, {});

    // Assert
    const memory = outcome.shortlist?.leftOut.find((exclusion) => exclusion.reason.startsWith('its memory'));
    expect([chosenTypes(outcome), memory?.families]).toEqual([
      ['ml.m6g.2xlarge', 'ml.m5.2xlarge', 'ml.g6.2xlarge'],
      ['c7i', 'g4dn', 'p3'],
    ]);
  });

  it('leaves Inferentia out of a model not compiled for it', () => {
    // Prepare
    const input = shortlistInput({ shortlist: { max: 3, kinds: ['inferentia', 'cpu'] } });

    // Act
    const outcome = expandShortlist(input, {});

    // Assert
    expect([
      chosenTypes(outcome).some((type) => type.startsWith('ml.inf')),
      outcome.shortlist?.leftOut,
    ]).toEqual([
      false,
      expect.arrayContaining([
        {
          reason:
            'Inferentia serves Neuron-compiled models only: list its target (ml_inf1, ml_inf2) in compilation.targets',
          families: ['inf1', 'inf2'],
        },
      ]),
    ]);
  });

  it('serves Inferentia2 the artifact compiled for it when the run compiles for ml_inf2', () => {
    // Prepare
    const input = shortlistInput({ shortlist: { max: 1, kinds: ['inferentia'] }, targets: ['ml_inf2'] });

    // Act
    const outcome = expandShortlist(input, {});

    // Assert
    expect(outcome.input.candidates).toEqual([
      { instanceType: 'ml.inf2.xlarge', initialInstanceCount: 1, environment: {}, compiledFor: 'ml_inf2' },
    ]);
  });

  it('takes Inferentia2 uncompiled for an LLM container with a Neuron image, and no CPU', () => {
    // Prepare: an 8B fp16 model in the LMI container, which has images for NVIDIA GPUs and Neuron.
    const input = runInputSchema.parse({
      model: {
        framework: 'djl-lmi',
        hub: { modelId: 'meta-llama/Llama-3.1-8B-Instruct' },
        size: { parameters: 8e9, dtype: 'fp16' },
      },
      payload: { uri: 's3://bucket/models/llama/prompt.json' },
      candidates: { shortlist: { max: 3, kinds: ['cpu', 'gpu', 'inferentia'] } },
      loadPlan: { model: 'closed', steps: [1], warmupSeconds: 10, stepDurationSeconds: 60 },
      sla: { p95LatencyMs: 5000 },
    });

    // Act
    const outcome = expandShortlist(input, {});

    // Assert
    expect([
      outcome.shortlist?.chosen.map((type) => [type.instanceType, type.kind, type.compiledFor]),
      outcome.shortlist?.leftOut.find((exclusion) => exclusion.families.includes('c5'))?.reason,
    ]).toEqual([
      [
        ['ml.g4dn.xlarge', 'gpu', undefined],
        ['ml.inf2.xlarge', 'inferentia', undefined],
        ['ml.g6.2xlarge', 'gpu', undefined],
      ],
      'the djl-lmi container has no image for its hardware',
    ]);
  });

  it("leaves out the types the LLM container's settings refuse, as they would refuse a listed candidate", () => {
    // Prepare: a tensor parallel degree of 4 needs 4 GPUs.
    const input = runInputSchema.parse({
      model: {
        framework: 'djl-lmi',
        hub: { modelId: 'meta-llama/Llama-3.1-8B-Instruct' },
        size: { parameters: 8e9, dtype: 'fp16' },
        environment: { OPTION_TENSOR_PARALLEL_DEGREE: '4' },
      },
      payload: { uri: 's3://bucket/models/llama/prompt.json' },
      candidates: { shortlist: { max: 2, kinds: ['gpu'] } },
      pricing: { usdPerHour: { 'ml.g5.12xlarge': 7.09 } },
      loadPlan: { model: 'closed', steps: [1], warmupSeconds: 10, stepDurationSeconds: 60 },
      sla: { p95LatencyMs: 5000 },
    });

    // Act
    const outcome = expandShortlist(input, {});

    // Assert
    expect([
      outcome.shortlist?.chosen.map((type) => type.instanceType),
      outcome.shortlist?.leftOut.find((exclusion) => exclusion.reason.includes('settings'))?.families,
    ]).toEqual([['ml.g4dn.12xlarge', 'ml.g6.12xlarge'], ['p3']]);
  });

  it('leaves Graviton out on AWS when the model is served by an image of the user', () => {
    // Prepare
    const input = shortlistInput({
      shortlist: { max: 2, kinds: ['cpu'] },
      image: '123456789012.dkr.ecr.us-east-1.amazonaws.com/my-server:1',
    });

    // Act
    const outcome = expandShortlist(input, { servingRegion: 'us-east-1' });

    // Assert
    expect(chosenTypes(outcome)).toEqual(['ml.c5.large', 'ml.m5.large']);
  });

  it('names the families each reason left out once, and none that was chosen', () => {
    // Prepare
    const input = shortlistInput({ shortlist: { max: 2, kinds: ['cpu'] } });

    // Act
    const outcome = expandShortlist(input, {});

    // Assert
    const named = outcome.shortlist?.leftOut.flatMap((exclusion) => exclusion.families) ?? [];
    expect([named.includes('c6g'), named.includes('m6g'), named.includes('c5')]).toEqual([
      false,
      false,
      true,
    ]);
  });

  it('fails when no type of the kinds asked for can hold the model', () => {
    // Prepare: 2e11 fp32 parameters are 745 GiB.
    const input = shortlistInput({ shortlist: { max: 2, kinds: ['gpu'] }, parameters: 2e11 });

    // Act
    const outcome = expandShortlist(input, {});

    // Assert
    expect(outcome.issues).toEqual([
      expect.objectContaining({
        field: 'candidates.shortlist',
        expected: expect.stringContaining('its memory cannot hold the model'),
      }),
    ]);
  });
});
