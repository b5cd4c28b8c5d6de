/**
 * A generative run with one SageMaker optimization job through the synthesized optimization state
 * machine, over the real SDK adapters and the validating fakes (aws-harness.ts): the optimized and
 * the plain candidate are compared in one run, and every request is checked against the Smithy
 * model's constraints (the generated constraint table) as the other workflows' are.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { ARTIFACTS_BUCKET, SAGEMAKER_ROLE_ARN } from './aws-harness.js';
import {
  MODEL_URI,
  PLAIN_IMAGE,
  RECOMMENDED_IMAGE,
  runOptimizationJobExample,
} from './support/optimization-job-run.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

const RUN_ID = 'conformance-optimization-job';
/** `mso-<run token>-oj-<id>` (core/contracts/names.ts), the run token a stable hash of the run id. */
const JOB_NAME = 'mso-conformance-optimiza-0f0ce326-oj-g5-awq';
describe('an optimization job in the optimization workflow', () => {
  let outcome: Awaited<ReturnType<typeof runOptimizationJobExample>>;

  beforeAll(async () => {
    outcome = await runOptimizationJobExample(workflows, RUN_ID);
  }, 120_000);

  it('succeeds with only requests SageMaker accepts', () => {
    // Assert
    expect({ status: outcome.status, violations: outcome.harness.recorder.violationLines() }).toEqual({
      status: 'SUCCEEDED',
      violations: [],
    });
  });

  it('creates the optimization job with the packaged model, the instance type, the technique, the run’s runtime and tags', () => {
    // Act
    const [create, ...more] = outcome.harness.recorder.inputsOf('CreateOptimizationJobCommand');

    // Assert
    expect(more).toEqual([]);
    expect(create).toEqual({
      OptimizationJobName: JOB_NAME,
      RoleArn: SAGEMAKER_ROLE_ARN,
      // The archive's files, uncompressed under the run's prefix, as the SageMaker Python SDK passes a source.
      ModelSource: {
        S3: {
          S3Uri: `s3://${ARTIFACTS_BUCKET}/runs/${RUN_ID}/model/files/`,
          ModelAccessConfig: { AcceptEula: true },
        },
      },
      DeploymentInstanceType: 'ml.g5.xlarge',
      OptimizationConfigs: [{ ModelQuantizationConfig: { OverrideEnvironment: { OPTION_QUANTIZE: 'awq' } } }],
      OutputConfig: { S3OutputLocation: `s3://${ARTIFACTS_BUCKET}/runs/${RUN_ID}/optimized/g5-awq/` },
      StoppingCondition: { MaxRuntimeInSeconds: 1800 },
      Tags: [
        { Key: 'mso:project', Value: 'model-serving-optimizer' },
        { Key: 'mso:run-id', Value: RUN_ID },
      ],
    });
  });

  it('deploys the optimized candidate from the job’s output, uncompressed, on the image the job recommends, and the plain one from the model archive', () => {
    // Act
    const containers = outcome.harness.recorder
      .inputsOf('CreateModelCommand')
      .map((input) => (input as { PrimaryContainer: unknown }).PrimaryContainer);

    // Assert
    expect(containers).toEqual(
      expect.arrayContaining([
        { Image: PLAIN_IMAGE, ModelDataUrl: MODEL_URI, Environment: {} },
        {
          Image: RECOMMENDED_IMAGE,
          ModelDataSource: {
            S3DataSource: {
              S3Uri: `s3://${ARTIFACTS_BUCKET}/runs/${RUN_ID}/optimized/g5-awq/`,
              S3DataType: 'S3Prefix',
              CompressionType: 'None',
            },
          },
          // Loaded as it was built: the quantization's override environment.
          Environment: { OPTION_QUANTIZE: 'awq' },
        },
      ]),
    );
    expect(containers).toHaveLength(2);
  });

  it('polls the job until it completed, and clean-up lists it and stops nothing that ended', () => {
    // Act
    const described = outcome.harness.recorder.inputsOf('DescribeOptimizationJobCommand');
    const stopped = outcome.harness.recorder.inputsOf('StopOptimizationJobCommand');
    const listed = outcome.harness.recorder.inputsOf('ListOptimizationJobsCommand');

    // Assert
    // Two checks (INPROGRESS, then COMPLETED: the fake's default), then clean-up's look before stopping.
    expect(described).toEqual([
      { OptimizationJobName: JOB_NAME },
      { OptimizationJobName: JOB_NAME },
      { OptimizationJobName: JOB_NAME },
    ]);
    expect(stopped).toEqual([]);
    expect(listed).toEqual([{ NameContains: 'mso-conformance-optimiza-0f0ce326-', MaxResults: 100 }]);
  });
});
