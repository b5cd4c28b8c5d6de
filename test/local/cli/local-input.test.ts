import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { takeLocalCalibration } from '../../../local/cli/calibration.js';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import {
  EXAMPLE_MODEL_URI,
  EXAMPLE_PAYLOAD_URI,
  seedExampleObjects,
} from '../../../local/cli/example-objects.js';
import { localModeIssues, withLocalDefaults } from '../../../local/cli/local-input.js';
import { MemoryObjectStore } from '../../support/memory-object-store.js';

/** This file's folder (`import.meta.dirname` is missing under jest 29). */
const HERE = dirname(fileURLToPath(import.meta.url));

const LOCAL_EXAMPLE = JSON.parse(
  readFileSync(join(HERE, '..', '..', '..', 'examples', 'local.json'), 'utf8'),
) as Record<string, unknown>;

describe('examples/local.json', () => {
  it('is a valid run input over the example model, with compiled and uncompiled candidates on one instance type', () => {
    // Act: as the CLI reads it, its local calibration taken out first
    const taken = takeLocalCalibration(LOCAL_EXAMPLE);
    const input = runInputSchema.parse(taken.input);

    // Assert
    expect(input.model?.artifactUri).toBe(EXAMPLE_MODEL_URI);
    expect(input.payload?.uri).toBe(EXAMPLE_PAYLOAD_URI);
    const onC5Large = input.candidates.filter((c) => 'instanceType' in c && c.instanceType === 'ml.c5.large');
    expect(onC5Large.map((c) => ('compiledFor' in c ? c.compiledFor : undefined))).toEqual([
      undefined,
      'ml_c5',
    ]);
    expect(input.maxConcurrentCandidates).toBe(1);
    expect([taken.calibration, taken.issues]).toEqual([{ slaTimesReferenceP95: 4 }, []]);
  });
});

describe('examples/local-routing.json', () => {
  it('compares the two routing strategies on the compiled model, ml.c5.large × 2 each, in one short local plan', () => {
    // Prepare
    const document = JSON.parse(
      readFileSync(join(HERE, '..', '..', '..', 'examples', 'local-routing.json'), 'utf8'),
    ) as Record<string, unknown>;

    // Act
    const input = runInputSchema.parse(takeLocalCalibration(document).input);

    // Assert
    expect(
      input.candidates.map((c) =>
        'instanceType' in c ? [c.instanceType, c.initialInstanceCount, c.compiledFor, c.routingStrategy] : [],
      ),
    ).toEqual([
      ['ml.c5.large', 2, 'ml_c5', 'RANDOM'],
      ['ml.c5.large', 2, 'ml_c5', 'LEAST_OUTSTANDING_REQUESTS'],
    ]);
    expect([input.loadPlan.steps, input.loadPlan.kneeProbes, input.loadPlan.repeats]).toEqual([[2, 4], 0, 1]);
  });
});

describe('withLocalDefaults', () => {
  it('sets model.image to "local" when the input names none', () => {
    // Act
    const input = withLocalDefaults({ model: { framework: 'onnx' }, sla: {} });

    // Assert
    expect(input).toEqual({ model: { framework: 'onnx', image: 'local' }, sla: {} });
  });

  it('keeps an image the input names', () => {
    // Prepare
    const given = { model: { image: '123456789012.dkr.ecr.us-east-1.amazonaws.com/x:1' } };

    // Act
    const input = withLocalDefaults(given);

    // Assert
    expect(input).toBe(given);
  });

  it('measures the sustainable load 3 times when the load plan does not say', () => {
    // Act
    const input = withLocalDefaults({
      model: { image: 'local' },
      loadPlan: { steps: [1], stepDurationSeconds: 5 },
    });

    // Assert
    expect(input).toEqual({
      model: { image: 'local' },
      loadPlan: { steps: [1], stepDurationSeconds: 5, repeats: 3 },
    });
  });

  it('keeps the repeats the load plan names', () => {
    // Prepare
    const given = { model: { image: 'local' }, loadPlan: { steps: [1], repeats: 1 } };

    // Act & Assert
    expect(withLocalDefaults(given)).toBe(given);
  });

  it('adds no repeats to steps that may not fit one worker invocation', () => {
    // Prepare: 5 s warm-up + 600 s window.
    const given = { model: { image: 'local' }, loadPlan: { steps: [1], stepDurationSeconds: 600 } };

    // Act & Assert
    expect(withLocalDefaults(given)).toBe(given);
  });
});

describe('localModeIssues', () => {
  it('fails when availability.minInstances is more than this machine runs at once, naming its budget', () => {
    // Act
    const issues = localModeIssues(
      { model: { framework: 'onnx' }, sla: { targetTps: 60 }, availability: { minInstances: 1000 } },
      { availableCpus: 2, maxThreads: 8 },
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'availability.minInstances',
        given: '1000',
        expected:
          'at most 8 in local mode: the proof and the ramp test deploy at least this many instances, each a model ' +
          'server of at least one thread, and this machine runs at most 8 at once (2 cores × 4); plan a larger ' +
          "minimum on AWS, where the account's quota of the instance type bounds it",
      },
    ]);
  });

  it('accepts a minimum this machine can run, and any minimum without a target (it is not read)', () => {
    // Act
    const machine = { availableCpus: 2, maxThreads: 8 };
    const within = localModeIssues({ sla: { targetTps: 60 }, availability: { minInstances: 8 } }, machine);
    const noTarget = localModeIssues({ sla: {}, availability: { minInstances: 1000 } }, machine);

    // Assert
    expect([within, noTarget]).toEqual([[], []]);
  });

  it('refuses a framework other than ONNX and an existing endpoint, naming the fields', () => {
    // Act
    const issues = localModeIssues({
      model: { framework: 'pytorch' },
      existingEndpoint: { endpointName: 'prod' },
    });

    // Assert
    expect(issues.map((issue) => [issue.field, issue.given])).toEqual([
      ['model.framework', '"pytorch"'],
      ['existingEndpoint', '{"endpointName":"prod"}'],
    ]);
  });

  it('refuses a Hugging Face Hub model, saying why it cannot run offline and to run it on AWS', () => {
    // Act
    const issues = localModeIssues({
      model: { framework: 'huggingface', hub: { modelId: 'distilbert/distilbert-base-uncased' } },
    });

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.framework',
        given: '"huggingface" (Hub model distilbert/distilbert-base-uncased)',
        expected:
          '"onnx" in local mode: the local model server runs ONNX models only, and local mode works offline, ' +
          'while a Hugging Face model runs in the Hugging Face DLC on SageMaker, which downloads a Hub model from ' +
          'the internet when it starts. Plan it offline with npm run plan:aws -- --input <file>, and run it on AWS: npm run -s runs -- start --input <file>',
      },
    ]);
  });

  it('refuses a model in an LLM container, pointing to the local generative example and to AWS', () => {
    // Act
    const issues = localModeIssues({
      model: { framework: 'vllm', hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' } },
    });

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.framework',
        given: '"vllm"',
        expected:
          '"onnx" in local mode: the local model server runs ONNX models only, while an LLM container runs on SageMaker ' +
          'GPU or Inferentia2 instances; examples/local-generative.json streams a generative model locally in the same ' +
          'formats. Plan this input offline with npm run plan:aws -- --input <file>, and run it on AWS: npm run -s runs -- start --input <file>',
      },
    ]);
  });

  it('finds nothing to refuse in the local example', () => {
    // Act
    const issues = localModeIssues(LOCAL_EXAMPLE);

    // Assert
    expect(issues).toEqual([]);
  });
});

describe('seedExampleObjects', () => {
  it('writes the example model and payload the input refers to', async () => {
    // Prepare
    const store = new MemoryObjectStore();

    // Act
    const written = await seedExampleObjects(store, LOCAL_EXAMPLE);

    // Assert
    expect(written).toEqual([EXAMPLE_MODEL_URI, EXAMPLE_PAYLOAD_URI]);
    expect(store.objects.get(EXAMPLE_PAYLOAD_URI)?.body.byteLength).toBe(3 * 32 * 32 * 4);
  });

  it('writes nothing the store already has or the input does not name', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(EXAMPLE_MODEL_URI, 'mine');

    // Act
    const written = await seedExampleObjects(store, { model: { artifactUri: EXAMPLE_MODEL_URI } });

    // Assert
    expect(written).toEqual([]);
    expect(new TextDecoder().decode(store.objects.get(EXAMPLE_MODEL_URI)?.body)).toBe('mine');
  });

  it('interleaves the repeats when every candidate’s model server fits this machine at once', () => {
    // Prepare: 2 cores × 4: 2 + 2 threads, and 2 workers × 1 thread under a 2-thread budget.
    const machine = { availableCpus: 2, maxThreads: 8 };
    const candidates = [
      { instanceType: 'ml.c5.large' },
      { instanceType: 'ml.c5.xlarge', environment: { SAGEMAKER_MODEL_SERVER_WORKERS: '2' } },
    ];

    // Act
    const input = withLocalDefaults(
      { model: { image: 'local' }, candidates, loadPlan: { steps: [1] } },
      machine,
    );

    // Assert
    expect(input).toEqual({
      model: { image: 'local' },
      candidates,
      loadPlan: { steps: [1], repeats: 3, interleaveRepeats: true },
    });
  });

  it('runs the repeats back to back when the candidates’ servers would pass the local quota at once', () => {
    // Prepare: 5 candidates, each once with 1 thread and once with 2 (the environment range):
    // 15 threads of the 8 allowed.
    const machine = { availableCpus: 2, maxThreads: 8 };
    const candidates = [1, 2, 3, 4, 5].map(() => ({ instanceType: 'ml.c5.xlarge' }));
    const given = {
      model: { image: 'local' },
      candidates,
      environmentRanges: { OMP_NUM_THREADS: ['1', '2'] },
      loadPlan: { steps: [1], repeats: 3 },
    };

    // Act & Assert
    expect(withLocalDefaults(given, machine)).toBe(given);
  });

  it('keeps interleaveRepeats as the load plan names it', () => {
    // Prepare
    const given = {
      model: { image: 'local' },
      candidates: [{ instanceType: 'ml.c5.large' }, { instanceType: 'ml.c5.large' }],
      loadPlan: { steps: [1], repeats: 3, interleaveRepeats: false },
    };

    // Act & Assert
    expect(withLocalDefaults(given, { availableCpus: 2, maxThreads: 8 })).toBe(given);
  });
});
