/**
 * A generative run with one SageMaker optimization job through the synthesized optimization state
 * machine, over the real SDK adapters and the validating fakes (aws-harness.ts): the optimized and
 * the plain candidate are compared in one run, and every request is checked against the Smithy
 * model's constraints (the generated constraint table) as the other workflows' are.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { buildModelArchive } from '../../handlers/shared/model-archive.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { ARTIFACTS_BUCKET, AwsHarness, SAGEMAKER_ROLE_ARN, withUnmissableSla } from './aws-harness.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

const RUN_ID = 'conformance-optimization-job';
/** `mso-<run token>-oj-<id>` (handlers/contracts/names.ts), the run token a stable hash of the run id. */
const JOB_NAME = 'mso-conformance-optimiza-0f0ce326-oj-g5-awq';
const MODEL_URI = `s3://${ARTIFACTS_BUCKET}/models/llm/model.tar.gz`;
const PAYLOAD_URI = `s3://${ARTIFACTS_BUCKET}/models/llm/prompt.json`;
const PLAIN_IMAGE = '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.29.0-lmi11.0.0-cu124';
/** What the fake's DescribeOptimizationJob recommends (fake-aws/sagemaker-service.ts). */
const RECOMMENDED_IMAGE = '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:lmi-optimized';

const INPUT = {
  name: 'LLM on ml.g5: AWQ-quantized vs plain',
  model: { artifactUri: MODEL_URI, framework: 'pytorch', frameworkVersion: '2.1', image: PLAIN_IMAGE },
  payload: { uri: PAYLOAD_URI, contentType: 'application/json' },
  compilation: {
    maxRuntimeSeconds: 1800,
    optimizations: [
      {
        id: 'g5-awq',
        deploymentInstanceType: 'ml.g5.xlarge',
        techniques: { quantization: { overrideEnvironment: { OPTION_QUANTIZE: 'awq' } } },
        acceptEula: true,
      },
    ],
  },
  candidates: [
    { id: 'g5-plain', instanceType: 'ml.g5.xlarge' },
    { id: 'g5-awq', instanceType: 'ml.g5.xlarge', optimizedBy: 'g5-awq' },
  ],
  loadPlan: {
    model: 'closed',
    steps: [1],
    warmupSeconds: 0,
    stepDurationSeconds: 0.1,
    stopAtPlateau: false,
    kneeProbes: 0,
    response: { mode: 'stream', format: 'tgi' },
  },
  sla: { ttftP95Ms: 1000 },
};

async function run(): Promise<{ harness: AwsHarness; status: string; output: unknown }> {
  const harness = new AwsHarness();
  // A model directory packaged as a model.tar.gz: "Package model" unpacks it for the job's source.
  harness.s3.seed(
    MODEL_URI,
    await buildModelArchive({ modelFileName: 'config.json', modelBytes: new TextEncoder().encode('{}') }),
  );
  harness.s3.seed(PAYLOAD_URI, '{"inputs":"Hello","parameters":{"max_new_tokens":2},"stream":true}');
  const result = await harness.runOptimization({
    workflows,
    input: withUnmissableSla(INPUT),
    runId: RUN_ID,
    streamFormat: 'tgi',
  });
  return { harness, status: result.status, output: 'output' in result ? result.output : result };
}

describe('an optimization job in the optimization workflow', () => {
  let outcome: Awaited<ReturnType<typeof run>>;

  beforeAll(async () => {
    outcome = await run();
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
