import { describe, expect, it } from '@jest/globals';
import { unknownInstanceFactWarnings } from '../../../core/planning/unknown-instance-facts.js';
import {
  validateAndPlan,
  type ValidateAndPlanDeps,
} from '../../../core/steps/optimization/validate-and-plan.js';
import { MemoryObjectStore, silentLogger } from '../../support/memory-object-store.js';

const MODEL_URI = 's3://user-models/resnet/model.onnx';
const PAYLOAD_URI = 's3://user-models/resnet/payload.json';

function deps(): ValidateAndPlanDeps {
  const store = new MemoryObjectStore().seed(MODEL_URI, 'weights').seed(PAYLOAD_URI, '{"x":1}');
  return { store, artifactsBucket: 'mso-artifacts', allowFileUris: false, logger: silentLogger };
}

describe('unknown instance facts', () => {
  it('names the facts no source gives and the checks the plan therefore skips', () => {
    // Act
    const warnings = unknownInstanceFactWarnings(['ml.p6-b200.48xlarge', 'ml.p6-b200.48xlarge']);

    // Assert: the B200's compute capability is the one fact of ml.p6-b200.48xlarge no source gives.
    expect(warnings).toEqual([
      'ml.p6-b200.48xlarge: no source read for the instance table gives computeCapability, llmContainers, ' +
        "so the plan cannot check whether the serving image's CUDA runs on its GPU; which LLM containers " +
        'have an image for it (add the facts to core/catalog/sources/instance-facts.json and run npm run catalog)',
    ]);
  });

  it('warns about nothing for a type whose checked facts are all known, or a type outside the catalog', () => {
    // Act
    const warnings = unknownInstanceFactWarnings([
      'ml.c5.xlarge',
      'ml.g5.xlarge',
      'ml.inf2.xlarge',
      'ml.x9.huge',
    ]);

    // Assert
    expect(warnings).toEqual([]);
  });

  it('plans a priced candidate on a type with unknown facts, with a warning instead of a refusal', async () => {
    // Prepare
    const input = {
      model: { artifactUri: MODEL_URI, framework: 'onnx' },
      payload: { uri: PAYLOAD_URI },
      candidates: [{ instanceType: 'ml.p6e-gb200.36xlarge' }],
      pricing: { usdPerHour: { 'ml.p6e-gb200.36xlarge': 90 } },
      loadPlan: { steps: [1] },
      sla: { p95LatencyMs: 100 },
    };

    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input }, deps());

    // Assert
    expect(plan.candidates.map((candidate) => candidate.instanceType)).toEqual(['ml.p6e-gb200.36xlarge']);
    expect(plan.warnings).toEqual([
      expect.stringMatching(
        /^candidates\[0\] \(ml\.p6e-gb200\.36xlarge\): the instance table does not know its accelerator memory/,
      ),
      expect.stringMatching(/^ml\.p6e-gb200\.36xlarge: no source read for the instance table/),
    ]);
  });
});
