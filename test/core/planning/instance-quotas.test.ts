import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import { type RunInput, runInputSchema } from '../../../core/contracts/run-input.js';
import { candidatesInFlightWithin, checkInstanceQuotas } from '../../../core/planning/instance-quotas.js';
import type { InstanceQuota, InstanceQuotaReader, Logger } from '../../../core/ports/index.js';
import { LocalInstanceQuotas } from '../../../local/adapters/local-instance-quotas.js';

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
  it('fails when availability.minInstances is above the quota of every candidate type, naming the quota', async () => {
    // Prepare
    const input = runInputSchema.parse({
      ...runInput([{ instanceType: 'ml.g5.xlarge' }]),
      sla: { p95LatencyMs: 100, targetTps: 50 },
      availability: { minInstances: 1000 },
    });

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
        field: 'availability.minInstances',
        given: '1000',
        expected:
          'at most 2: the recommendation keeps at least this many instances of its type in one endpoint, and ' +
          'the account\'s quota "ml.g5.xlarge for endpoint usage" (L-G5G5G5G5) is 2 in us-east-1, shared by all ' +
          "the account's endpoints. Raise it in the Service Quotas console (Amazon SageMaker, " +
          '"ml.g5.xlarge for endpoint usage") or `aws service-quotas request-service-quota-increase ' +
          '--service-code sagemaker --quota-code L-G5G5G5G5 --desired-value 1000`, or ask for a lower minimum',
      },
    ]);
  });

  it('accepts availability.minInstances above one type’s quota when another type, unread, may fit', async () => {
    // Prepare
    const input = runInputSchema.parse({
      ...runInput([{ instanceType: 'ml.g5.xlarge' }, { instanceType: 'ml.c5.xlarge' }]),
      sla: { p95LatencyMs: 100, targetTps: 50 },
      availability: { minInstances: 3 },
    });

    // Act
    const quotas = await checkInstanceQuotas(input, {
      instanceQuotas: reader([G5_QUOTA]),
      logger: recordingLogger(),
    });

    // Assert
    expect(quotas).toEqual([G5_QUOTA]);
  });

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

  it('lets the run go on, with the quotas it read, when the candidates that run at once need more than the quota', async () => {
    // Prepare: three single-instance candidates at once against a quota of 2.
    const input = runInput(
      [{ instanceType: 'ml.g5.xlarge' }, { instanceType: 'ml.g5.xlarge' }, { instanceType: 'ml.g5.xlarge' }],
      3,
    );
    const logger = recordingLogger();

    // Act
    const quotas = await checkInstanceQuotas(input, { instanceQuotas: reader([G5_QUOTA]), logger });

    // Assert: candidatesInFlightWithin caps them (below).
    expect(quotas).toEqual([G5_QUOTA]);
    expect(logger.warnings).toEqual([]);
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

describe('candidatesInFlightWithin', () => {
  it('caps 10 candidates of one type on a quota of 2 at 2 in flight, saying why and how to raise it', () => {
    // Prepare
    const input = runInput(
      Array.from({ length: 10 }, () => ({ instanceType: 'ml.g5.xlarge' })),
      10,
    );

    // Act
    const inFlight = candidatesInFlightWithin(input, [G5_QUOTA], 'us-east-1');

    // Assert
    expect(inFlight).toEqual({
      maxConcurrentCandidates: 2,
      warning:
        'maxConcurrentCandidates: 10 asked, 2 planned: the account\'s quota "ml.g5.xlarge for endpoint usage" (L-G5G5G5G5) ' +
        "is 2 in us-east-1, shared by all the account's endpoints, and 10 candidates at once could need 10 × ml.g5.xlarge; " +
        "the others would wait for capacity longer than a deploy's quota retry lasts. Raise it in the Service Quotas " +
        'console (Amazon SageMaker, "ml.g5.xlarge for endpoint usage") or `aws service-quotas request-service-quota-increase ' +
        '--service-code sagemaker --quota-code L-G5G5G5G5 --desired-value 10` to run more at once',
    });
  });

  it('counts the largest candidates of the type first: 2 + 1 instances on a quota of 2 run one at a time', () => {
    // Prepare
    const input = runInput(
      [{ instanceType: 'ml.g5.xlarge', initialInstanceCount: 2 }, { instanceType: 'ml.g5.xlarge' }],
      2,
    );

    // Act
    const inFlight = candidatesInFlightWithin(input, [G5_QUOTA]);

    // Assert
    expect(inFlight.maxConcurrentCandidates).toBe(1);
  });

  it('keeps the asked concurrency when every type fits its quota, or no quota was read', () => {
    // Prepare: two g5 (quota 2) and any number of c5 (no quota read).
    const input = runInput(
      [{ instanceType: 'ml.g5.xlarge' }, { instanceType: 'ml.g5.xlarge' }, { instanceType: 'ml.c5.xlarge' }],
      3,
    );

    // Act / Assert
    expect(candidatesInFlightWithin(input, [G5_QUOTA])).toEqual({ maxConcurrentCandidates: 3 });
    expect(candidatesInFlightWithin(input, [])).toEqual({ maxConcurrentCandidates: 3 });
  });
});
