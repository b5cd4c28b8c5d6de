import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { ErrorNames } from '../../../../core/contracts/errors.js';
import {
  CompilationOutcomes,
  type CompilationState,
  type RunPlan,
} from '../../../../core/contracts/optimization-state.js';
import { deployCandidate, type DeployDeps } from '../../../../core/steps/optimization/deploy-candidate.js';
import type { ApprovedModelRunTemplate } from '../../../../core/contracts/approved-model-run-template.js';
import {
  type ExecutionStarter,
  startApprovedModelRun,
} from '../../../../core/operations/start-approved-model-run.js';
import { validateAndPlan } from '../../../../core/steps/optimization/validate-and-plan.js';
import { FakeSageMaker } from '../../../support/fake-sagemaker.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';

const RUN_ID = 'deploy-test';
const MODEL_URI = 's3://mso-artifacts/models/cnn/model.onnx';
const PAYLOAD_URI = 's3://mso-artifacts/models/cnn/payload.json';
const PACKAGED_URI = `s3://mso-artifacts/runs/${RUN_ID}/model/model.tar.gz`;
const COMPILED_URI = `s3://mso-artifacts/runs/${RUN_ID}/compiled/ml_c5/model-ml_c5.tar.gz`;
/** The uncompiled serving image the user names (the project model server, pushed to ECR). */
const MODEL_IMAGE = '123456789012.dkr.ecr.us-east-1.amazonaws.com/mso-model-server:1';
/** What DescribeCompilationJob names as `InferenceImage` for an ONNX model compiled for ml_c5. */
const NEO_IMAGE = '785573368785.dkr.ecr.us-east-1.amazonaws.com/sagemaker-neo-onnx:1.5.0-cpu-py3';
const OWN_NEO_IMAGE = '123456789012.dkr.ecr.us-east-1.amazonaws.com/my-neo-runtime:2';

function runInput(model: Record<string, unknown> = {}, compiledFor = 'ml_c5'): Record<string, unknown> {
  return {
    model: {
      artifactUri: MODEL_URI,
      framework: 'onnx',
      inputShape: { input: [1, 3, 32, 32] },
      image: MODEL_IMAGE,
      ...model,
    },
    payload: { uri: PAYLOAD_URI },
    compilation: { targets: [compiledFor] },
    candidates: [
      { id: 'cpu', instanceType: 'ml.c5.xlarge' },
      {
        id: 'cpu-neo',
        instanceType: compiledFor === 'ml_c6g' ? 'ml.c6g.xlarge' : 'ml.c5.xlarge',
        compiledFor,
      },
    ],
    loadPlan: { steps: [1], warmupSeconds: 0, stepDurationSeconds: 2 },
    sla: { p95LatencyMs: 50 },
  };
}

function seededStore(): MemoryObjectStore {
  return new MemoryObjectStore().seed(MODEL_URI, 'onnx bytes').seed(PAYLOAD_URI, '{"inputs":[[0]]}');
}

function plan(input: unknown, runId = RUN_ID): Promise<RunPlan> {
  return validateAndPlan(
    { runId, input },
    { store: seededStore(), artifactsBucket: 'mso-artifacts', allowFileUris: false, logger: silentLogger },
  );
}

function completed(target: string, inferenceImage?: string): CompilationState {
  return {
    target,
    jobName: `job-${target}`,
    status: CompilationOutcomes.completed,
    waitSeconds: 30,
    deadlineEpochMs: 0,
    artifactUri: COMPILED_URI,
    ...(inferenceImage === undefined ? {} : { inferenceImage }),
  };
}

function deps(host: FakeSageMaker): DeployDeps {
  return {
    host,
    region: 'us-east-1',
    logger: silentLogger,
    pollSeconds: 30,
    maxPollSeconds: 120,
    nowEpochMs: () => 0,
    loadStartDelaySeconds: 0,
  };
}

/** Deploys one candidate of the plan and returns the CreateModel spec SageMaker received. */
async function deployed(
  runPlan: RunPlan,
  candidateId: string,
  compilations: readonly CompilationState[],
): Promise<{ image: string; modelDataUrl: string | undefined } | undefined> {
  const candidate = runPlan.candidates.find((c) => c.id === candidateId);
  if (candidate === undefined) throw new Error(`no candidate ${candidateId} in the plan`);
  const host = new FakeSageMaker();
  await deployCandidate(
    {
      plan: runPlan,
      candidate,
      packagedModel: { modelDataUrl: runPlan.model?.packagedUri ?? PACKAGED_URI, reused: false },
      compilations,
    },
    deps(host),
  );
  const spec = host.models.get(candidate.modelName);
  return spec === undefined ? undefined : { image: spec.image, modelDataUrl: spec.modelDataUrl };
}

describe('deployCandidate: serving image', () => {
  it('runs a compiled candidate on the image its compilation job named, even with model.image set', async () => {
    // Prepare
    const runPlan = await plan(runInput());

    // Act
    const model = await deployed(runPlan, 'cpu-neo', [completed('ml_c5', NEO_IMAGE)]);

    // Assert
    expect(model).toEqual({ image: NEO_IMAGE, modelDataUrl: COMPILED_URI });
  });

  it('runs an uncompiled candidate on model.image', async () => {
    // Prepare
    const runPlan = await plan(runInput());

    // Act
    const model = await deployed(runPlan, 'cpu', [completed('ml_c5', NEO_IMAGE)]);

    // Assert
    expect(model).toEqual({ image: MODEL_IMAGE, modelDataUrl: PACKAGED_URI });
  });

  it('runs a compiled candidate on model.compiledImage rather than the image the job named', async () => {
    // Prepare
    const runPlan = await plan(runInput({ compiledImage: OWN_NEO_IMAGE }));

    // Act
    const model = await deployed(runPlan, 'cpu-neo', [completed('ml_c5', NEO_IMAGE)]);

    // Assert
    expect(model).toEqual({ image: OWN_NEO_IMAGE, modelDataUrl: COMPILED_URI });
  });

  it('runs a compiled candidate on the table’s Neo image when the job named none', async () => {
    // Prepare
    const runPlan = await plan(runInput());

    // Act
    const model = await deployed(runPlan, 'cpu-neo', [completed('ml_c5')]);

    // Assert
    expect(model).toEqual({ image: NEO_IMAGE, modelDataUrl: COMPILED_URI });
  });

  it('refuses a compiled candidate with no InferenceImage and no table image, whatever model.image says', async () => {
    // Prepare
    const runPlan = await plan(runInput({}, 'ml_c6g'));

    // Act
    const deploying = deployed(runPlan, 'cpu-neo', [completed('ml_c6g')]);

    // Assert
    await expect(deploying).rejects.toMatchObject({
      name: ErrorNames.noServingImage,
      message:
        'No serving image for onnx compiled for ml_c6g on ml.c6g.xlarge in us-east-1: the table has no onnx ' +
        'image compiled for Graviton (arm64) CPU (its onnx images: compiled for x86 CPU, compiled for NVIDIA ' +
        'GPU). The Neo images the table lists are x86 or NVIDIA builds; none is listed for Graviton. The ' +
        'compilation job named no InferenceImage: set model.compiledImage to the ECR URI of an image that ' +
        'runs Neo artifacts (model.image serves uncompiled candidates only).',
    });
  });
});

/** Records the run input of each start, as Step Functions would receive it. */
class RecordingStarter implements ExecutionStarter {
  readonly inputs: Readonly<Record<string, unknown>>[] = [];

  start(request: { readonly name: string; readonly input: Readonly<Record<string, unknown>> }) {
    this.inputs.push(request.input);
    return Promise.resolve({
      status: 'started' as const,
      executionArn: `arn:aws:states:us-east-1:123456789012:execution:Optimization:${request.name}`,
    });
  }
}

describe('deployCandidate: serving image of an approval-trigger run', () => {
  const PACKAGE_MODEL_URI = 's3://mso-artifacts/models/cnn/model.tar.gz';

  /** The run an approved package starts when the template takes its image (`fromPackage: ['image']`). */
  async function approvedRunPlan(): Promise<RunPlan> {
    const { model, ...rest } = runInput();
    const { artifactUri: _artifactUri, image: _image, ...templateModel } = model as Record<string, unknown>;
    const template: ApprovedModelRunTemplate = {
      input: { ...rest, model: templateModel },
      fromPackage: ['image'],
    };
    const starter = new RecordingStarter();
    await startApprovedModelRun(
      {
        source: 'aws.sagemaker',
        'detail-type': 'SageMaker Model Package State Change',
        detail: {
          ModelPackageGroupName: 'cnn',
          ModelPackageVersion: 3,
          ModelPackageArn: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/cnn/3',
          ModelApprovalStatus: 'Approved',
          ModelPackageStatus: 'Completed',
          InferenceSpecification: { Containers: [{ Image: MODEL_IMAGE, ModelDataUrl: PACKAGE_MODEL_URI }] },
        },
      },
      { template, starter, logger: silentLogger },
    );
    const input = starter.inputs[0];
    return validateAndPlan(
      { runId: 'approved-cnn-v3', input: JSON.parse(JSON.stringify(input)) as unknown },
      {
        // A gzip stream, as the first state checks (core/planning/object-checks.ts).
        store: seededStore().seed(PACKAGE_MODEL_URI, gzipSync('tar bytes')),
        artifactsBucket: 'mso-artifacts',
        allowFileUris: false,
        logger: silentLogger,
      },
    );
  }

  it('runs the compiled candidate on the compilation’s InferenceImage, not the package image', async () => {
    // Prepare
    const runPlan = await approvedRunPlan();

    // Act
    const model = await deployed(runPlan, 'cpu-neo', [completed('ml_c5', NEO_IMAGE)]);

    // Assert
    expect(runPlan.model?.image).toBe(MODEL_IMAGE);
    expect(model).toEqual({ image: NEO_IMAGE, modelDataUrl: COMPILED_URI });
  });

  it('runs the uncompiled candidate on the package image', async () => {
    // Prepare
    const runPlan = await approvedRunPlan();

    // Act
    const model = await deployed(runPlan, 'cpu', [completed('ml_c5', NEO_IMAGE)]);

    // Assert
    expect(model).toEqual({ image: MODEL_IMAGE, modelDataUrl: PACKAGE_MODEL_URI });
  });
});
