/** What local mode adds to, and refuses in, a run input before it runs. */
import type { InputIssue } from '../../handlers/contracts/errors.js';
import { describeGiven } from '../../handlers/contracts/validation.js';
import { isRecord } from '../../handlers/contracts/records.js';

/** The image name the run input schema reserves for the project's own model server. */
export const LOCAL_IMAGE = 'local';

/**
 * Local mode serves every model with the project model server, so the serving image does not
 * matter; without one, the planner would look up a SageMaker image, which uncompiled ONNX lacks.
 */
export function withLocalDefaults(input: unknown): unknown {
  if (!isRecord(input) || !isRecord(input.model) || input.model.image !== undefined) return input;
  return { ...input, model: { ...input.model, image: LOCAL_IMAGE } };
}

/** Inputs valid on AWS that local mode cannot run: each named like a schema issue. */
export function localModeIssues(input: unknown): InputIssue[] {
  if (!isRecord(input)) return [];
  const issues: InputIssue[] = [];
  if (isRecord(input.model) && input.model.framework !== undefined && input.model.framework !== 'onnx') {
    issues.push({
      field: 'model.framework',
      given: describeGiven(input.model.framework),
      expected: '"onnx" in local mode (the local model server runs ONNX models with ONNX Runtime)',
    });
  }
  if (input.existingEndpoint !== undefined) {
    issues.push({
      field: 'existingEndpoint',
      given: describeGiven(input.existingEndpoint),
      expected:
        'nothing in local mode (it cannot reach SageMaker endpoints); deploy the model as candidates instead',
    });
  }
  return issues;
}
