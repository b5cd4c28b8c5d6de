import { describe, expect, it } from '@jest/globals';
import {
  CompilationOutcomes,
  type CompilationState,
  type PlannedCandidate,
} from '../../../core/contracts/optimization-state.js';
import { candidateDeployment } from '../../../core/deployment/candidate-deployment.js';
import { runPlan } from '../../../bench/fixtures/sample-report.js';

const OUTPUT_URI = 's3://mso-artifacts/runs/nightly-2026-11-22/optimized/g5-awq/';
const PACKAGED_URI = 's3://mso-artifacts/runs/nightly-2026-11-22/model/model.tar.gz';
const PLAIN_IMAGE = '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.29.0-lmi11.0.0-cu124';
const RECOMMENDED = '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.30.0-lmi12.0.0-cu124';

const OPTIMIZED: PlannedCandidate = {
  id: 'g5-awq',
  kind: 'realtime',
  instanceType: 'ml.g5.xlarge',
  initialInstanceCount: 1,
  optimizedBy: 'g5-awq',
  environment: { OPTION_MAX_ROLLING_BATCH_SIZE: '8' },
  modelName: 'mso-m-g5-awq',
  endpointConfigName: 'mso-ec-g5-awq',
  endpointName: 'mso-ep-g5-awq',
  usdPerHour: 1.006,
  priceSource: 'price-table',
  estimatedCostUsd: 0.1,
};

function deploymentWith(job: CompilationState, model: Record<string, unknown> = {}) {
  return candidateDeployment(
    {
      plan: runPlan([OPTIMIZED], {
        model: {
          artifactUri: 's3://user-models/llm/model.tar.gz',
          framework: 'pytorch',
          image: PLAIN_IMAGE,
          environment: {},
          packagedUri: PACKAGED_URI,
          needsPackaging: false,
          ...model,
        },
      }),
      candidate: OPTIMIZED,
      packagedModel: { modelDataUrl: PACKAGED_URI, reused: true },
      compilations: [job],
    },
    'us-east-1',
  );
}

const JOB = {
  target: 'g5-awq',
  kind: 'optimization',
  jobName: 'mso-oj-g5-awq',
  waitSeconds: 30,
  deadlineEpochMs: 0,
} as const;

describe('candidateDeployment of an optimized candidate', () => {
  it('serves the job’s uncompressed output on the image the job recommends, not model.image', () => {
    // Act
    const deployment = deploymentWith({
      ...JOB,
      status: CompilationOutcomes.completed,
      artifactUri: OUTPUT_URI,
      artifactUncompressed: true,
      inferenceImage: RECOMMENDED,
    });

    // Assert
    expect(deployment).toMatchObject({
      kind: 'create',
      imageSource: 'optimization job RecommendedInferenceImage',
      model: {
        modelName: 'mso-m-g5-awq',
        image: RECOMMENDED,
        modelDataUrl: OUTPUT_URI,
        modelDataUncompressed: true,
        environment: { OPTION_MAX_ROLLING_BATCH_SIZE: '8' },
      },
    });
  });

  it('serves it on model.compiledImage when the run names one', () => {
    // Prepare
    const own = '123456789012.dkr.ecr.us-east-1.amazonaws.com/my-lmi:1';

    // Act
    const deployment = deploymentWith(
      { ...JOB, status: CompilationOutcomes.completed, artifactUri: OUTPUT_URI, inferenceImage: RECOMMENDED },
      { compiledImage: own },
    );

    // Assert
    expect(deployment).toMatchObject({
      kind: 'create',
      imageSource: 'model.compiledImage',
      model: { image: own },
    });
  });

  it('serves the optimized model with the job’s environment, so it is loaded as it was built, the candidate’s own settings winning', () => {
    // Prepare
    const candidate: PlannedCandidate = {
      ...OPTIMIZED,
      // The run's model environment, then the candidate's own settings.
      environment: { OPTION_N_POSITIONS: '4096', OPTION_DTYPE: 'fp16', OPTION_MAX_ROLLING_BATCH_SIZE: '8' },
    };
    const plan = runPlan([candidate], {
      model: {
        artifactUri: 's3://user-models/llm/model.tar.gz',
        framework: 'pytorch',
        image: PLAIN_IMAGE,
        environment: { OPTION_N_POSITIONS: '4096', OPTION_DTYPE: 'fp16' },
        packagedUri: PACKAGED_URI,
        needsPackaging: false,
      },
      compilations: [
        {
          target: 'g5-awq',
          jobName: 'mso-oj-g5-awq',
          outputUri: OUTPUT_URI,
          optimization: {
            deploymentInstanceType: 'ml.g5.xlarge',
            environment: { OPTION_ENTRYPOINT: 'djl_python.huggingface' },
            techniques: {
              quantization: { overrideEnvironment: { OPTION_QUANTIZE: 'awq', OPTION_N_POSITIONS: '2048' } },
              compilation: { overrideEnvironment: { OPTION_TENSOR_PARALLEL_DEGREE: '1' } },
            },
          },
        },
      ],
    });

    // Act
    const deployment = candidateDeployment(
      {
        plan,
        candidate,
        packagedModel: { modelDataUrl: PACKAGED_URI, reused: true },
        compilations: [
          {
            ...JOB,
            status: CompilationOutcomes.completed,
            artifactUri: OUTPUT_URI,
            artifactUncompressed: true,
          },
        ],
      },
      'us-east-1',
    );

    // Assert
    if (deployment.kind !== 'create') throw new Error(`expected a deployment, got ${deployment.kind}`);
    expect(deployment.model.environment).toEqual({
      OPTION_DTYPE: 'fp16',
      OPTION_ENTRYPOINT: 'djl_python.huggingface',
      OPTION_QUANTIZE: 'awq',
      // The job compiled for 2,048 positions: the model's 4,096 would not load its artifact.
      OPTION_N_POSITIONS: '2048',
      OPTION_TENSOR_PARALLEL_DEGREE: '1',
      OPTION_MAX_ROLLING_BATCH_SIZE: '8',
    });
  });

  it('lets the candidate’s own setting win over the job’s', () => {
    // Prepare
    const candidate: PlannedCandidate = { ...OPTIMIZED, environment: { OPTION_TENSOR_PARALLEL_DEGREE: '2' } };
    const plan = runPlan([candidate], {
      model: {
        artifactUri: 's3://user-models/llm/model.tar.gz',
        framework: 'pytorch',
        image: PLAIN_IMAGE,
        environment: {},
        packagedUri: PACKAGED_URI,
        needsPackaging: false,
      },
      compilations: [
        {
          target: 'g5-awq',
          jobName: 'mso-oj-g5-awq',
          outputUri: OUTPUT_URI,
          optimization: {
            deploymentInstanceType: 'ml.g5.xlarge',
            techniques: { sharding: { overrideEnvironment: { OPTION_TENSOR_PARALLEL_DEGREE: '1' } } },
          },
        },
      ],
    });

    // Act
    const deployment = candidateDeployment(
      {
        plan,
        candidate,
        packagedModel: { modelDataUrl: PACKAGED_URI, reused: true },
        compilations: [{ ...JOB, status: CompilationOutcomes.completed, artifactUri: OUTPUT_URI }],
      },
      'us-east-1',
    );

    // Assert
    expect(deployment).toMatchObject({ model: { environment: { OPTION_TENSOR_PARALLEL_DEGREE: '2' } } });
  });

  it('skips the candidate with SageMaker’s reason when the job failed', () => {
    // Act
    const deployment = deploymentWith({
      ...JOB,
      status: CompilationOutcomes.failed,
      failureReason: 'ClientError: unsupported architecture for AWQ',
    });

    // Assert
    expect(deployment).toEqual({
      kind: 'skipped',
      skipReason: 'optimization g5-awq failed: ClientError: unsupported architecture for AWQ',
    });
  });
});
