/** What local mode adds to, and refuses in, an async run input before it runs. */
import type { InputIssue } from '../../../core/contracts/index.js';
import { describeGiven, isRecord } from '../../../core/contracts/index.js';
import { onnxOnlyIssues, withLocalImage } from '../local-input.js';

/** Local mode serves every model with the project model server: without an image, use it. */
export function withAsyncLocalDefaults(input: unknown): unknown {
  return withLocalImage(input, 'endpoint');
}

/** Inputs valid on AWS that local mode cannot run: each named like a schema issue. */
export function asyncLocalModeIssues(input: unknown): InputIssue[] {
  if (!isRecord(input)) return [];
  const issues = onnxOnlyIssues(
    'endpoint.framework',
    isRecord(input.endpoint) ? input.endpoint.framework : undefined,
  );
  if (input.endpointName !== undefined) {
    issues.push({
      field: 'endpointName',
      given: describeGiven(input.endpointName),
      expected:
        'nothing in local mode (each local run starts with no endpoint and cannot reach SageMaker); describe one to deploy under "endpoint"',
    });
  }
  return issues;
}
