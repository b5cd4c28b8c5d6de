/**
 * Which AWS adapters (`lambdas/adapters/`) the conformance layer runs: an adapter whose requests
 * never reach a validating fake is checked neither against the service's declaration nor against
 * IAM. One optimization run with a compiled candidate (started, listed, described and followed
 * through the run API, summarized when it ends), one async run on a reused endpoint (its role
 * checked by IAM's policy simulator), one optimization-job run, a run stopped through the API and
 * cleaned up by the safety net, a janitor sweep, a model-approval start and the life of an endpoint
 * of inference components cover every adapter;
 * each recorded request names the adapter modules on its stack.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { parseApprovedModelRunTemplate } from '../../core/planning/approved-model-template-check.js';
import {
  ARTIFACTS_BUCKET,
  AwsHarness,
  NOTIFICATION_TOPICS,
  SAGEMAKER_ROLE_ARN,
  STATE_MACHINE_ARNS,
  withShortLoadPlan,
  withUnmissableSla,
} from './aws-harness.js';
import { addDeployedExecutionRole } from './iam/conformance-iam.js';
import { runOptimizationJobExample } from './support/optimization-job-run.js';
import { ConformanceFunctions, ONE_CANDIDATE_INPUT, seedObjectsOf } from './support/run-functions.js';
import {
  COMPONENT_NAMES,
  componentSpec,
  componentWorld,
  deployComponentEndpoint,
} from './support/component-endpoint.js';
import { componentsProgress, deleteEndpointComponents } from '../../core/deployment/component-lifecycle.js';
import { REPO_ROOT } from './constraints/project-operations.js';

const ADAPTERS_DIR = join(REPO_ROOT, 'lambdas', 'adapters');

/** The adapter modules that send AWS requests (helpers such as error mappers send none). */
function adapterModules(): string[] {
  return readdirSync(ADAPTERS_DIR)
    .filter((file) => file.endsWith('.ts'))
    .filter((file) =>
      /\.send\(|resolveMiddleware\(|paginate[A-Z]/.test(readFileSync(join(ADAPTERS_DIR, file), 'utf8')),
    )
    .map((file) => file.replace(/\.ts$/, ''))
    .sort();
}

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

function example(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(REPO_ROOT, 'examples', file), 'utf8')) as Record<string, unknown>;
}

/** Every object an input names, seeded (a model archive gzipped, a prefix with three objects). */
function seedObjects(harness: AwsHarness, input: Record<string, unknown>): void {
  for (const [uri] of JSON.stringify(input).matchAll(new RegExp(`s3://${ARTIFACTS_BUCKET}/[^"]+`, 'g'))) {
    if (uri.endsWith('/')) {
      for (const index of [1, 2, 3]) harness.s3.seed(`${uri}sample-${index}.json`, '{"inputs":[[0]]}');
    } else harness.s3.seed(uri, uri.endsWith('.tar.gz') ? gzipSync('model') : '{"inputs":[[0]]}');
  }
}

async function adaptersRun(): Promise<Set<string>> {
  const reached = new Set<string>();
  const record = (harness: AwsHarness): void => {
    for (const call of harness.recorder.calls) for (const adapter of call.adapters) reached.add(adapter);
  };
  const optimization = new AwsHarness();
  const sweep = example('gpu-vs-inferentia.json');
  seedObjects(optimization, sweep);
  const swept = await optimization.runOptimization({
    workflows,
    // With the output-quality guard, whose answers go through its own adapter.
    input: { ...withUnmissableSla(withShortLoadPlan(sweep)), quality: { rule: { kind: 'classifier' } } },
    runId: 'coverage-sweep',
  });
  record(optimization);

  // Started through the run API, run, followed through it and summarized when it ends; another
  // stopped through the API and cleaned up by the safety net; a janitor sweep; an approved version.
  const support = new AwsHarness();
  const api = new ConformanceFunctions(support);
  const small = ONE_CANDIDATE_INPUT;
  seedObjectsOf(support, small);
  const started = await api.startRun('optimization', { runId: 'coverage-api', input: small });
  if (started.statusCode !== 200) throw new Error(`POST /runs answered ${JSON.stringify(started)}`);
  const apiRun = await api.runExecution(workflows, executionArn('optimization', 'coverage-api'));
  await api.listRuns('optimization');
  await api.describeRun('optimization', 'coverage-api');
  await api.runEvents('optimization', 'coverage-api');
  await api.notifyRunSummary(statusChange('optimization', 'coverage-api', apiRun.status));
  await api.startRun('optimization', { runId: 'coverage-stopped', input: small });
  await api.stopRun('optimization', 'coverage-stopped');
  await api.cleanUpFailedRun(statusChange('optimization', 'coverage-stopped', 'ABORTED'));
  await api.janitor(Date.now());
  // The trigger's template is a run input whose model data the approved version gives.
  const { artifactUri: _fromTheVersion, ...model } = small.model;
  const approved = await api.startApprovedModelRun(
    parseApprovedModelRunTemplate({ input: { ...small, model } }),
    approvedVersionEvent(),
  );
  if (approved.outcome !== 'started')
    throw new Error(`The approval trigger answered ${JSON.stringify(approved)}`);
  record(support);

  const asyncRun = new AwsHarness();
  const batch = example('async-benchmark.json');
  seedObjects(asyncRun, batch);
  const asyncStatus = await asyncRun.runAsyncInference({ workflows, input: batch, runId: 'coverage-async' });
  record(asyncRun);

  // On an endpoint of the stack's own role, which IAM's policy simulator checks.
  const reusedRun = new AwsHarness();
  addDeployedExecutionRole(reusedRun.iam, workflows);
  const reuse = example('async-existing-endpoint.json');
  seedObjects(reusedRun, reuse);
  reusedRun.sagemaker.addExistingEndpoint({
    endpointName: String(reuse.endpointName),
    instanceType: 'ml.g5.xlarge',
    instanceCount: 1,
    executionRoleArn: SAGEMAKER_ROLE_ARN,
    asyncInference: {
      OutputConfig: {
        S3OutputPath: `s3://${ARTIFACTS_BUCKET}/runs/reused/output/`,
        NotificationConfig: {
          SuccessTopic: NOTIFICATION_TOPICS.successTopicArn,
          ErrorTopic: NOTIFICATION_TOPICS.errorTopicArn,
        },
      },
    },
  });
  const reusedStatus = await reusedRun.runAsyncInference({
    workflows,
    input: reuse,
    runId: 'coverage-reused',
  });
  record(reusedRun);

  const generated = await runOptimizationJobExample(workflows, 'coverage-optimization-job');
  record(generated.harness);

  // An endpoint of inference components: no workflow step creates one yet, so its life is sent
  // directly, by the same adapters over the same validating fake.
  const components = componentWorld();
  await deployComponentEndpoint(components);
  await components.components.createInferenceComponent(componentSpec());
  await componentsProgress(components.components, [COMPONENT_NAMES.component]);
  await componentsProgress(components.components, [COMPONENT_NAMES.component]);
  await deleteEndpointComponents(components.components, COMPONENT_NAMES.endpoint);
  if (components.recorder.violations.length > 0) {
    throw new Error(
      `The component requests broke the API model: ${components.recorder.violationLines().join('; ')}`,
    );
  }
  for (const call of components.recorder.calls) for (const adapter of call.adapters) reached.add(adapter);
  for (const [name, status] of [
    ['sweep', swept.status],
    ['run API', apiRun.status],
    ['async', asyncStatus.status],
    ['reused-endpoint async', reusedStatus.status],
    ['optimization job', generated.status],
  ]) {
    if (status !== 'SUCCEEDED') throw new Error(`The ${name} run ${status}; expected SUCCEEDED`);
  }
  return reached;
}

function executionArn(workflow: keyof typeof STATE_MACHINE_ARNS, runId: string): string {
  return `${STATE_MACHINE_ARNS[workflow].replace(':stateMachine:', ':execution:')}:${runId}`;
}

function statusChange(workflow: keyof typeof STATE_MACHINE_ARNS, runId: string, status: string) {
  return {
    executionArn: executionArn(workflow, runId),
    stateMachineArn: STATE_MACHINE_ARNS[workflow],
    name: runId,
    status,
  };
}

/** An approved version of a model package group, as SageMaker sends it to EventBridge. */
function approvedVersionEvent(): Record<string, unknown> {
  const packageArn = 'arn:aws:sagemaker:us-east-1:123456789012:model-package/resnet50/3';
  return {
    version: '0',
    id: 'c800a495-b000-072c-7392-c683e89c96a8',
    'detail-type': 'SageMaker Model Package State Change',
    source: 'aws.sagemaker',
    account: '123456789012',
    time: '2026-01-01T00:00:00Z',
    region: 'us-east-1',
    resources: [packageArn],
    detail: {
      ModelPackageName: 'resnet50/3',
      ModelPackageGroupName: 'resnet50',
      ModelPackageVersion: 3,
      ModelPackageArn: packageArn,
      CreationTime: 1_767_225_600_000,
      InferenceSpecification: {
        Containers: [
          {
            Image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.0-cpu-py310',
            ModelDataUrl: `s3://${ARTIFACTS_BUCKET}/models/resnet50/3/model.tar.gz`,
            Framework: 'PYTORCH',
            FrameworkVersion: '2.0',
          },
        ],
      },
      ModelApprovalStatus: 'Approved',
      ModelPackageStatus: 'Completed',
    },
  };
}

describe('the conformance layer', () => {
  it('runs every AWS adapter: one a change adds without a run fails here, named', async () => {
    // Act
    const reached = await adaptersRun();
    const notRun = adapterModules().filter((adapter) => !reached.has(adapter));

    // Assert
    expect(notRun).toEqual([]);
  }, 120_000);
});
