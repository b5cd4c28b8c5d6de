import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import type { ApprovedModelRunTemplate } from '../../../core/contracts/approved-model-run-template.js';
import { parseApprovedModelRunTemplate } from '../../../core/planning/approved-model-template-check.js';
import {
  approvedRunName,
  type ExecutionStarter,
  startApprovedModelRun,
} from '../../../core/operations/start-approved-model-run.js';
import { silentLogger } from '../../support/memory-object-store.js';

const GROUP = 'churn-xgboost';
const PACKAGE_ARN = `arn:aws:sagemaker:us-east-1:123456789012:model-package/${GROUP}/7`;
const MODEL_DATA_URL = 's3://mso-artifacts/models/churn/7/model.tar.gz';
const IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1';

/** A run input without `model.artifactUri`, as the trigger's template holds it. */
const TEMPLATE_INPUT = {
  model: { framework: 'xgboost', frameworkVersion: '1.7' },
  payload: { uri: 's3://mso-artifacts/models/churn/payload.csv', contentType: 'text/csv' },
  candidates: [{ id: 'm5', instanceType: 'ml.m5.xlarge' }],
  loadPlan: { steps: [4, 16], warmupSeconds: 10, stepDurationSeconds: 45 },
  sla: { p95LatencyMs: 20 },
};

/** The event as SageMaker sends it to EventBridge (SageMaker developer guide example). */
function stateChange(detail: Record<string, unknown> = {}) {
  return {
    version: '0',
    id: 'c800a495-b000-072c-7392-c683e89c96a8',
    'detail-type': 'SageMaker Model Package State Change',
    source: 'aws.sagemaker',
    account: '123456789012',
    time: '2026-11-22T04:45:23Z',
    region: 'us-east-1',
    resources: [PACKAGE_ARN],
    detail: {
      ModelPackageName: `${GROUP}/7`,
      ModelPackageGroupName: GROUP,
      ModelPackageVersion: 7,
      ModelPackageArn: PACKAGE_ARN,
      CreationTime: 1_763_786_723_225,
      InferenceSpecification: {
        Containers: [
          {
            Image: IMAGE,
            ImageDigest: 'sha256:04889b02181f14632e19ef6c2a7d74bfe699ff4c7f44669a78834bc90b77fe5a',
            ModelDataUrl: MODEL_DATA_URL,
            Framework: 'XGBOOST',
            FrameworkVersion: '1.7',
          },
        ],
        SupportedContentTypes: ['text/csv'],
      },
      ModelPackageStatus: 'Completed',
      ModelApprovalStatus: 'Approved',
      ...detail,
    },
  };
}

/** Records each start; answers as Step Functions would for a new or a taken name. */
class RecordingStarter implements ExecutionStarter {
  readonly requests: { name: string; input: Readonly<Record<string, unknown>> }[] = [];
  private readonly taken = new Set<string>();

  constructor(taken: readonly string[] = []) {
    for (const name of taken) this.taken.add(name);
  }

  start(request: { readonly name: string; readonly input: Readonly<Record<string, unknown>> }) {
    this.requests.push(request);
    if (this.taken.has(request.name)) return Promise.resolve({ status: 'already-started' as const });
    this.taken.add(request.name);
    return Promise.resolve({
      status: 'started' as const,
      executionArn: `arn:aws:states:us-east-1:123456789012:execution:Optimization:${request.name}`,
    });
  }
}

function template(document: Record<string, unknown> = { input: TEMPLATE_INPUT }): ApprovedModelRunTemplate {
  return parseApprovedModelRunTemplate(document);
}

describe('startApprovedModelRun', () => {
  it('starts a run of the approved version named after its group and version, with its model data', async () => {
    // Prepare
    const starter = new RecordingStarter();

    // Act
    const result = await startApprovedModelRun(stateChange(), {
      template: template(),
      starter,
      logger: silentLogger,
    });

    // Assert
    expect(result).toEqual({
      outcome: 'started',
      modelPackageArn: PACKAGE_ARN,
      runId: 'approved-churn-xgboost-v7',
      executionArn: 'arn:aws:states:us-east-1:123456789012:execution:Optimization:approved-churn-xgboost-v7',
    });
    expect(starter.requests).toEqual([
      {
        name: 'approved-churn-xgboost-v7',
        input: {
          ...TEMPLATE_INPUT,
          name: 'Model package churn-xgboost v7 (approved)',
          model: { framework: 'xgboost', frameworkVersion: '1.7', artifactUri: MODEL_DATA_URL },
          modelPackage: { groupName: 'churn-xgboost', version: 7, arn: PACKAGE_ARN },
        },
      },
    ]);
  });

  it('reports a version whose run was already started as a success, without a second run', async () => {
    // Prepare: a redelivery of the same event finds the name taken.
    const starter = new RecordingStarter(['approved-churn-xgboost-v7']);

    // Act
    const result = await startApprovedModelRun(stateChange(), {
      template: template(),
      starter,
      logger: silentLogger,
    });

    // Assert
    expect(result).toEqual({
      outcome: 'already-started',
      modelPackageArn: PACKAGE_ARN,
      runId: 'approved-churn-xgboost-v7',
    });
  });

  it('gives a second delivery of the same event the same execution name and input', async () => {
    // Prepare
    const starter = new RecordingStarter();
    const deps = { template: template(), starter, logger: silentLogger };

    // Act
    await startApprovedModelRun(stateChange(), deps);
    await startApprovedModelRun(stateChange(), deps);

    // Assert
    expect(starter.requests[1]).toEqual(starter.requests[0]);
  });

  it('takes the image and the framework from the package when the template asks', async () => {
    // Prepare
    const starter = new RecordingStarter();
    const fromPackage = template({
      input: { ...TEMPLATE_INPUT, model: {} },
      fromPackage: ['image', 'framework'],
    });

    // Act
    await startApprovedModelRun(stateChange(), { template: fromPackage, starter, logger: silentLogger });

    // Assert
    expect(starter.requests[0]?.input.model).toEqual({
      artifactUri: MODEL_DATA_URL,
      image: IMAGE,
      framework: 'xgboost',
      frameworkVersion: '1.7',
    });
  });

  it('keeps the name the template gives the run', async () => {
    // Prepare
    const starter = new RecordingStarter();
    const named = template({ input: { ...TEMPLATE_INPUT, name: 'Churn model regression check' } });

    // Act
    await startApprovedModelRun(stateChange(), { template: named, starter, logger: silentLogger });

    // Assert
    expect(starter.requests[0]?.input.name).toBe('Churn model regression check');
  });

  it.each([
    [
      'PendingManualApproval',
      { ModelApprovalStatus: 'PendingManualApproval' },
      /approval status is "PendingManualApproval", expected "Approved"/,
    ],
    ['Rejected', { ModelApprovalStatus: 'Rejected' }, /approval status is "Rejected"/],
    [
      'InProgress',
      { ModelPackageStatus: 'InProgress' },
      /package status is "InProgress", expected "Completed"/,
    ],
  ])('ignores a package that is %s, saying why', async (_state, detail, reason) => {
    // Prepare
    const starter = new RecordingStarter();

    // Act
    const result = await startApprovedModelRun(stateChange(detail), {
      template: template(),
      starter,
      logger: silentLogger,
    });

    // Assert
    expect(result).toEqual({
      outcome: 'ignored',
      modelPackageArn: PACKAGE_ARN,
      reason: expect.stringMatching(reason),
    });
    expect(starter.requests).toEqual([]);
  });

  it('ignores an approved package without a model data URL, saying why', async () => {
    // Prepare: the model given as an uncompressed S3 prefix (ModelDataSource) instead.
    const starter = new RecordingStarter();
    const event = stateChange({
      InferenceSpecification: {
        Containers: [{ Image: IMAGE, ModelDataSource: { S3DataSource: { S3Uri: 's3://b/model/' } } }],
      },
    });

    // Act
    const result = await startApprovedModelRun(event, {
      template: template(),
      starter,
      logger: silentLogger,
    });

    // Assert
    expect(result).toEqual({
      outcome: 'ignored',
      modelPackageArn: PACKAGE_ARN,
      reason: expect.stringContaining('has no ModelDataUrl'),
    });
    expect(starter.requests).toEqual([]);
  });

  it('ignores an approved package without inference containers', async () => {
    // Prepare
    const starter = new RecordingStarter();

    // Act
    const result = await startApprovedModelRun(stateChange({ InferenceSpecification: undefined }), {
      template: template(),
      starter,
      logger: silentLogger,
    });

    // Assert
    expect(result.outcome).toBe('ignored');
    expect(starter.requests).toEqual([]);
  });

  it('fails when the package makes an invalid run input, naming the field, and starts nothing', async () => {
    // Prepare: the template takes the framework from a package whose framework the optimizer lacks.
    const starter = new RecordingStarter();
    const fromPackage = template({
      input: { ...TEMPLATE_INPUT, model: {} },
      fromPackage: ['framework'],
    });

    // Act
    const error = await startApprovedModelRun(
      stateChange({
        InferenceSpecification: { Containers: [{ ModelDataUrl: MODEL_DATA_URL, Framework: 'SKLEARN' }] },
      }),
      {
        template: fromPackage,
        starter,
        logger: silentLogger,
      },
    ).catch((e: unknown) => e);

    // Assert
    expect(error).toBeInstanceOf(InvalidRunInputError);
    expect((error as InvalidRunInputError).issues).toEqual([
      expect.objectContaining({ field: 'model.framework', given: '"sklearn"' }),
    ]);
    expect(starter.requests).toEqual([]);
  });

  it('fails when the event is not a model package state change, naming the field', async () => {
    // Act
    const act = startApprovedModelRun(
      {
        source: 'aws.sagemaker',
        'detail-type': 'SageMaker Model Package State Change',
        detail: { ModelPackageGroupName: GROUP },
      },
      { template: template(), starter: new RecordingStarter(), logger: silentLogger },
    );

    // Assert
    await expect(act).rejects.toThrow(/detail\.ModelPackageVersion: got nothing, expected/);
  });
});

describe('approvedRunName', () => {
  it('is approved-<group>-v<version> when it fits', () => {
    // Act
    const name = approvedRunName('fraud-detection', 17);

    // Assert
    expect(name).toBe('approved-fraud-detection-v17');
  });

  it('fits the longest group name into the 80-character execution name, keeping the version', () => {
    // Prepare
    const group = `model-${'a'.repeat(57)}`;

    // Act
    const name = approvedRunName(group, 1_234_567);

    // Assert
    expect(name).toMatch(/^approved-model-a+-[0-9a-f]{8}-v1234567$/);
    expect(name.length).toBeLessThanOrEqual(80);
    expect(name).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
  });

  it('keeps two long groups that share a prefix apart', () => {
    // Prepare
    const prefix = 'a'.repeat(62);

    // Act
    const names = [approvedRunName(`${prefix}1`, 1), approvedRunName(`${prefix}2`, 1)];

    // Assert
    expect(names[0]).not.toBe(names[1]);
  });
});

describe('parseApprovedModelRunTemplate', () => {
  it('fails when the template gives the artifact URI the package fills', () => {
    // Act
    const act = () =>
      parseApprovedModelRunTemplate({
        input: { ...TEMPLATE_INPUT, model: { ...TEMPLATE_INPUT.model, artifactUri: 's3://b/m.tar.gz' } },
      });

    // Assert
    expect(act).toThrow(
      'input.model.artifactUri: got "s3://b/m.tar.gz", expected nothing: the approved package\'s ModelDataUrl fills it',
    );
  });

  it('fails when the template names a model package, which the approved package fills', () => {
    // Prepare
    const document = {
      input: {
        ...TEMPLATE_INPUT,
        modelPackage: { groupName: GROUP, version: 1 },
      },
    };

    // Act
    const act = () => parseApprovedModelRunTemplate(document);

    // Assert
    expect(act).toThrow(
      'input.modelPackage: got {"groupName":"churn-xgboost","version":1}, expected nothing: the approved package fills it with its group, version and ARN',
    );
  });

  it('fails when the template gives the framework it also takes from the package', () => {
    // Act
    const act = () => parseApprovedModelRunTemplate({ input: TEMPLATE_INPUT, fromPackage: ['framework'] });

    // Assert
    expect(act).toThrow(
      /input\.model\.framework: got "xgboost", expected nothing: the approved package's container framework fills it/,
    );
  });

  it('fails when the template makes an invalid run input, naming the field, what it got and expected', () => {
    // Act
    const act = () =>
      parseApprovedModelRunTemplate({
        input: { ...TEMPLATE_INPUT, candidates: [{ instanceType: 'c5.xlarge' }] },
      });

    // Assert
    expect(act).toThrow(
      /input\.candidates\[0\]\.instanceType: got "c5\.xlarge", expected an instance type such as ml\.c5\.xlarge/,
    );
  });

  it("refuses a template whose tags use the project's namespace, which would keep its runs from clean-up", () => {
    // Act
    const act = () =>
      parseApprovedModelRunTemplate({ input: { ...TEMPLATE_INPUT, tags: { 'mso:keep': 'true' } } });

    // Assert
    expect(act).toThrow(
      'input.tags["mso:keep"]: got "mso:keep", expected a key of your own: the project sets "mso:keep" itself',
    );
  });

  it('fails when the template asks the package for an unknown field', () => {
    // Act
    const act = () => parseApprovedModelRunTemplate({ input: TEMPLATE_INPUT, fromPackage: ['environment'] });

    // Assert
    expect(act).toThrow(/fromPackage\[0\]: got "environment", expected one of "image"\|"framework"/);
  });
});
