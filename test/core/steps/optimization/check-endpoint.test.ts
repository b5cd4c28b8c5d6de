import { describe, expect, it } from '@jest/globals';
import { EndpointFailedError } from '../../../../core/contracts/errors.js';
import type { DeploymentState, RunPlan } from '../../../../core/contracts/optimization-state.js';
import { checkEndpoint, type CheckEndpointDeps } from '../../../../core/steps/optimization/check-endpoint.js';
import type { Logger, ModelHost } from '../../../../core/ports/index.js';
import { FakeSageMaker } from '../../../support/fake-sagemaker.js';
import { runPlan } from '../../../../bench/fixtures/sample-report.js';

const NOW = Date.UTC(2026, 10, 22, 10, 0, 0);
const DEPLOYMENT: DeploymentState = {
  candidateId: 'existing',
  endpointName: 'prod-resnet',
  status: 'DEPLOYING',
  waitSeconds: 30,
  deadlineEpochMs: NOW + 600_000,
};

/** A logger that keeps its warnings, to assert on them. */
function recordingLogger(): Logger & { readonly warnings: [string, Record<string, unknown> | undefined][] } {
  const warnings: [string, Record<string, unknown> | undefined][] = [];
  return { info: () => undefined, error: () => undefined, warn: (m, d) => warnings.push([m, d]), warnings };
}

function deps(host: FakeSageMaker, logger: Logger = recordingLogger()): CheckEndpointDeps {
  return {
    host,
    logger,
    pollSeconds: 30,
    maxPollSeconds: 120,
    loadStartDelaySeconds: 5,
    nowEpochMs: () => NOW,
  };
}

/** A plan with one load worker, and the run input's `existingEndpoint` when given. */
function plan(existingEndpoint?: NonNullable<RunPlan['existingEndpoint']>): RunPlan {
  return runPlan([], existingEndpoint === undefined ? {} : { existingEndpoint });
}

describe('checkEndpoint', () => {
  it('passes on the instance type, current count and variant of an endpoint in service', async () => {
    // Prepare
    const host = new FakeSageMaker();
    host.addExistingEndpoint('prod-resnet', 'ml.c5.xlarge', { instanceCount: 3, variantName: 'blue' });

    // Act
    const state = await checkEndpoint(
      { plan: plan({ endpointName: 'prod-resnet' }), deployment: DEPLOYMENT },
      deps(host),
    );

    // Assert
    expect(state).toEqual({
      ...DEPLOYMENT,
      status: 'IN_SERVICE',
      loadStartEpochMs: NOW + 5000,
      workerIndexes: [0],
      instanceType: 'ml.c5.xlarge',
      instanceCount: 3,
      variantName: 'blue',
    });
  });

  it('warns when existingEndpoint names another instance type or count than the endpoint has', async () => {
    // Prepare
    const host = new FakeSageMaker();
    host.addExistingEndpoint('prod-resnet', 'ml.c5.xlarge', { instanceCount: 3 });
    const logger = recordingLogger();

    // Act
    await checkEndpoint(
      {
        plan: plan({ endpointName: 'prod-resnet', instanceType: 'ml.m5.large', instanceCount: 1 }),
        deployment: DEPLOYMENT,
      },
      deps(host, logger),
    );

    // Assert
    expect(logger.warnings).toEqual([
      [
        'existingEndpoint disagrees with the endpoint: costed as the endpoint is',
        {
          endpointName: 'prod-resnet',
          given: { instanceType: 'ml.m5.large', instanceCount: 1 },
          described: { instanceType: 'ml.c5.xlarge', instanceCount: 3 },
        },
      ],
    ]);
  });

  it('redacts a credential quoted in SageMaker’s FailureReason before it reaches the error and the report', async () => {
    // Prepare: a container whose start-up error echoed its environment.
    const host = {
      describeEndpoint: (endpointName: string) =>
        Promise.resolve({
          endpointName,
          status: 'Failed',
          failureReason: 'container exited: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
        }),
    } as unknown as ModelHost;

    // Act
    const error = await checkEndpoint(
      { plan: plan(), deployment: DEPLOYMENT },
      { ...deps(new FakeSageMaker()), host },
    ).catch((e: unknown) => e);

    // Assert
    expect(error).toBeInstanceOf(EndpointFailedError);
    expect((error as EndpointFailedError).message).toBe(
      'Endpoint prod-resnet failed: container exited: AWS_SECRET_ACCESS_KEY=<credential>',
    );
    expect((error as EndpointFailedError).details).toEqual({
      endpointName: 'prod-resnet',
      failureReason: 'container exited: AWS_SECRET_ACCESS_KEY=<credential>',
    });
  });

  it('refuses an existing endpoint with several production variants, naming existingEndpoint.endpointName', async () => {
    // Prepare
    const host = new FakeSageMaker();
    host.addExistingEndpoint('prod-resnet', 'ml.c5.xlarge', {
      variantName: 'blue',
      otherVariants: ['green'],
    });

    // Act
    const checking = checkEndpoint(
      { plan: plan({ endpointName: 'prod-resnet' }), deployment: DEPLOYMENT },
      deps(host),
    );

    // Assert
    await expect(checking).rejects.toBeInstanceOf(EndpointFailedError);
    await expect(checking).rejects.toThrow(
      'existingEndpoint.endpointName prod-resnet: got an endpoint with 2 production variants (blue, green), expected one',
    );
  });
});
