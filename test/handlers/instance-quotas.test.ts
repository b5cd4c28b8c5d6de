import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../handlers/contracts/errors.js';
import { type RunInput, runInputSchema } from '../../handlers/contracts/run-input.js';
import { checkInstanceQuotas } from '../../handlers/instance-quotas.js';
import type { InstanceQuota, InstanceQuotaReader, Logger } from '../../handlers/ports.js';
import { LocalInstanceQuotas } from '../../local/adapters/local-instance-quotas.js';

type Warning = [string, Record<string, unknown> | undefined];

function recordingLogger(): Logger & { readonly warnings: Warning[] } {
  const warnings: Warning[] = [];
  return { info: () => undefined, error: () => undefined, warn: (m, d) => warnings.push([m, d]), warnings };
}

function runInput(
  candidates: readonly Record<string, unknown>[],
  maxConcurrentCandidates = 2,
  loadPlan: Record<string, unknown> = { steps: [1] },
): RunInput {
  return runInputSchema.parse({
    model: {
      artifactUri: 's3://user-models/cnn/model.onnx',
      framework: 'onnx',
      inputShape: { input: [1, 3] },
    },
    payload: { uri: 's3://user-models/cnn/payload.json' },
    candidates,
    loadPlan,
    sla: { p95LatencyMs: 100 },
    maxConcurrentCandidates,
  });
}

const G5_QUOTA: InstanceQuota = {
  instanceType: 'ml.g5.xlarge',
  quotaName: 'ml.g5.xlarge for endpoint usage',
  quotaCode: 'L-G5G5G5G5',
  value: 2,
  source: 'applied',
};

function reader(quotas: readonly InstanceQuota[]): InstanceQuotaReader {
  return { endpointInstanceQuotas: () => Promise.resolve(quotas) };
}

describe('checkInstanceQuotas', () => {
  it('refuses a candidate that needs more instances than the quota, naming the quota and how to raise it', async () => {
    // Prepare
    const input = runInput([
      { instanceType: 'ml.g5.xlarge', initialInstanceCount: 3 },
      { instanceType: 'ml.c5.xlarge' },
    ]);

    // Act
    const error = await checkInstanceQuotas(input, {
      instanceQuotas: reader([G5_QUOTA]),
      servingRegion: 'us-east-1',
      logger: recordingLogger(),
    }).catch((e: unknown) => e);

    // Assert
    expect(error).toBeInstanceOf(InvalidRunInputError);
    expect((error as InvalidRunInputError).issues).toEqual([
      {
        field: 'candidates[0].initialInstanceCount',
        given: '3 × ml.g5.xlarge',
        expected:
          'at most 2: the account\'s quota "ml.g5.xlarge for endpoint usage" (L-G5G5G5G5) is 2 in us-east-1, ' +
          "shared by all the account's endpoints. Raise it in the Service Quotas console (Amazon SageMaker, " +
          '"ml.g5.xlarge for endpoint usage") or `aws service-quotas request-service-quota-increase ' +
          '--service-code sagemaker --quota-code L-G5G5G5G5 --desired-value 3`, or ask for fewer instances or ' +
          'another instance type',
      },
    ]);
  });

  it('refuses every candidate of a type whose quota is 0 (a new account)', async () => {
    // Prepare
    const input = runInput([{ instanceType: 'ml.g5.xlarge' }, { instanceType: 'ml.g5.xlarge' }]);

    // Act
    const error = await checkInstanceQuotas(input, {
      instanceQuotas: reader([{ ...G5_QUOTA, value: 0, source: 'default' }]),
      logger: recordingLogger(),
    }).catch((e: unknown) => e);

    // Assert
    expect((error as InvalidRunInputError).issues.map((issue) => [issue.field, issue.given])).toEqual([
      ['candidates[0].initialInstanceCount', '1 × ml.g5.xlarge'],
      ['candidates[1].initialInstanceCount', '1 × ml.g5.xlarge'],
    ]);
    expect((error as InvalidRunInputError).issues[0]?.expected).toContain(
      'at most 0: AWS\'s default "ml.g5.xlarge for endpoint usage" (L-G5G5G5G5) is 0,',
    );
  });

  it('warns, and lets the run go on, when the candidates that run at once need more than the quota', async () => {
    // Prepare: three single-instance candidates at once against a quota of 2.
    const input = runInput(
      [{ instanceType: 'ml.g5.xlarge' }, { instanceType: 'ml.g5.xlarge' }, { instanceType: 'ml.g5.xlarge' }],
      3,
    );
    const logger = recordingLogger();

    // Act
    await checkInstanceQuotas(input, { instanceQuotas: reader([G5_QUOTA]), logger });

    // Assert
    expect(logger.warnings).toEqual([
      [
        'Candidates will queue for instance capacity',
        {
          instanceType: 'ml.g5.xlarge',
          quotaName: 'ml.g5.xlarge for endpoint usage',
          quota: 2,
          instancesAtOnce: 3,
          hint:
            'Raise it in the Service Quotas console (Amazon SageMaker, "ml.g5.xlarge for endpoint usage") or ' +
            '`aws service-quotas request-service-quota-increase --service-code sagemaker --quota-code L-G5G5G5G5 --desired-value 3`',
        },
      ],
    ]);
  });

  it('refuses interleaved repeats when every endpoint kept at once needs more than the quota', async () => {
    // Prepare: three g5 candidates one at a time fit a quota of 2, but not all kept for the repeats.
    const candidates = [1, 2, 3].map(() => ({ instanceType: 'ml.g5.xlarge' }));
    const input = runInput(candidates, 1, { steps: [1], repeats: 2, interleaveRepeats: true });

    // Act
    const error = await checkInstanceQuotas(input, {
      instanceQuotas: reader([G5_QUOTA]),
      servingRegion: 'us-east-1',
      logger: recordingLogger(),
    }).catch((e: unknown) => e);

    // Assert
    expect(error).toBeInstanceOf(InvalidRunInputError);
    expect((error as InvalidRunInputError).issues).toEqual([
      {
        field: 'loadPlan.interleaveRepeats',
        given: "true: every candidate's endpoint is kept until the repeats, 3 × ml.g5.xlarge at once",
        expected:
          'at most 2: the account\'s quota "ml.g5.xlarge for endpoint usage" (L-G5G5G5G5) is 2 in us-east-1, shared by all the account\'s endpoints. Set loadPlan.interleaveRepeats to false (repeats back to back), or raise it in the Service Quotas console (Amazon SageMaker, "ml.g5.xlarge for endpoint usage") or `aws service-quotas request-service-quota-increase --service-code sagemaker --quota-code L-G5G5G5G5 --desired-value 3`',
      },
    ]);
  });

  it('warns and goes on when the quotas cannot be read (AccessDenied)', async () => {
    // Prepare
    const denied = Object.assign(
      new Error('User is not authorized to perform: servicequotas:ListServiceQuotas'),
      {
        name: 'AccessDeniedException',
      },
    );
    const logger = recordingLogger();
    const input = runInput([{ instanceType: 'ml.g5.xlarge', initialInstanceCount: 3 }]);

    // Act
    await checkInstanceQuotas(input, {
      instanceQuotas: { endpointInstanceQuotas: () => Promise.reject(denied) },
      logger,
    });

    // Assert
    expect(logger.warnings).toEqual([
      [
        'Instance quotas could not be read: candidates beyond a quota will wait or fail when deployed',
        {
          instanceTypes: ['ml.g5.xlarge'],
          error: 'AccessDeniedException: User is not authorized to perform: servicequotas:ListServiceQuotas',
        },
      ],
    ]);
  });

  it('checks nothing locally by default: the local host has no per-type quota', async () => {
    // Prepare
    const logger = recordingLogger();
    const input = runInput([{ instanceType: 'ml.g5.xlarge', initialInstanceCount: 3 }]);

    // Act
    await checkInstanceQuotas(input, { instanceQuotas: new LocalInstanceQuotas(), logger });

    // Assert
    expect(logger.warnings).toEqual([]);
  });
});
