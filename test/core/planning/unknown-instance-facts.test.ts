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
    const warnings = unknownInstanceFactWarnings(['ml.c8g.xlarge', 'ml.c8g.xlarge']);

    // Assert
    expect(warnings).toEqual([
      'ml.c8g.xlarge: no source read for the instance table gives vcpus, so the plan cannot check ' +
        'its vCPUs (the local CPU budget) (add the facts to ' +
        'core/catalog/sources/instance-facts.json and run npm run catalog)',
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
      candidates: [{ instanceType: 'ml.c8g.xlarge' }],
      pricing: { usdPerHour: { 'ml.c8g.xlarge': 0.2 } },
      loadPlan: { steps: [1] },
      sla: { p95LatencyMs: 100 },
    };

    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input }, deps());

    // Assert
    expect(plan.candidates.map((candidate) => candidate.instanceType)).toEqual(['ml.c8g.xlarge']);
    expect(plan.warnings).toEqual([
      expect.stringMatching(
        /^candidates\[0\] \(ml\.c8g\.xlarge\): the instance table does not know its host memory/,
      ),
      expect.stringMatching(/^ml\.c8g\.xlarge: no source read for the instance table/),
    ]);
  });
});
