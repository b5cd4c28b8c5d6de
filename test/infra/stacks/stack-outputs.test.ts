import { describe, expect, it } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { ARTIFACTS_BUCKET_OUTPUT, stackOutputsOf } from '../../../client/init-command.js';
import { ServingOptimizerStack } from '../../../infra/stacks/serving-optimizer-stack.js';
import { createTestApp, FIXTURE_LAMBDAS, TEST_ENV } from '../app.js';
import { logicalIdOf } from '../policy-grants.js';

/**
 * `npm run -s runs -- init` reads the artifacts bucket from the outputs `npm run deploy` writes
 * (`cdk deploy --outputs-file cdk-outputs.json`, keyed by stack then output id): the stack must
 * output the bucket's name under the id the client reads.
 */
describe('the stack outputs runs init reads', () => {
  it('outputs the artifacts bucket’s name under ArtifactsBucketName', () => {
    // Prepare
    const app = createTestApp();
    const stack = new ServingOptimizerStack(app, 'Outputs', {
      env: TEST_ENV,
      lambdaEntryDirectory: FIXTURE_LAMBDAS,
      includeWorkflows: false,
    });

    // Act
    const outputs = Template.fromStack(stack).toJSON().Outputs as Record<string, { Value: unknown }>;

    // Assert
    expect(outputs[ARTIFACTS_BUCKET_OUTPUT]?.Value).toEqual({
      Ref: logicalIdOf(stack, stack.artifactsBucket),
    });
  });

  it('reads the bucket from an outputs file as cdk deploy writes it', () => {
    // Prepare
    const file = { Outputs: { [ARTIFACTS_BUCKET_OUTPUT]: 'outputs-artifacts-1', OtherOutput: 'x' } };

    // Act
    const outputs = stackOutputsOf(file, 'cdk-outputs.json');

    // Assert
    expect(outputs).toEqual({ stackName: 'Outputs', bucket: 'outputs-artifacts-1' });
  });
});
