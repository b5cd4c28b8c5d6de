import {
  ListAWSDefaultServiceQuotasCommand,
  ListServiceQuotasCommand,
  ServiceQuotasClient,
} from '@aws-sdk/client-service-quotas';
import { afterEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { ServiceQuotasInstanceReader } from '../../../lambdas/adapters/service-quotas-reader.js';

const quotas = mockClient(ServiceQuotasClient);

afterEach(() => {
  quotas.reset();
});

describe('ServiceQuotasInstanceReader', () => {
  it('finds the endpoint-usage quotas by name over every page of the applied values', async () => {
    // Prepare
    quotas
      .on(ListServiceQuotasCommand)
      .resolvesOnce({
        Quotas: [
          { QuotaName: 'ml.g5.xlarge for training job usage', QuotaCode: 'L-AAAAAAAA', Value: 4 },
          { QuotaName: 'ml.g5.xlarge for endpoint usage', QuotaCode: 'L-G5G5G5G5', Value: 2 },
        ],
        NextToken: 'page-2',
      })
      .resolvesOnce({
        Quotas: [{ QuotaName: 'ml.c5.xlarge for endpoint usage', QuotaCode: 'L-C5C5C5C5', Value: 20 }],
      });
    const reader = new ServiceQuotasInstanceReader(new ServiceQuotasClient({}));

    // Act
    const found = await reader.endpointInstanceQuotas(['ml.c5.xlarge', 'ml.g5.xlarge']);

    // Assert
    expect(found).toEqual([
      {
        instanceType: 'ml.c5.xlarge',
        quotaName: 'ml.c5.xlarge for endpoint usage',
        quotaCode: 'L-C5C5C5C5',
        value: 20,
        source: 'applied',
      },
      {
        instanceType: 'ml.g5.xlarge',
        quotaName: 'ml.g5.xlarge for endpoint usage',
        quotaCode: 'L-G5G5G5G5',
        value: 2,
        source: 'applied',
      },
    ]);
    expect(quotas.commandCalls(ListServiceQuotasCommand).map((call) => call.args[0].input)).toEqual([
      { ServiceCode: 'sagemaker', MaxResults: 100 },
      { ServiceCode: 'sagemaker', MaxResults: 100, NextToken: 'page-2' },
    ]);
    expect(quotas.commandCalls(ListAWSDefaultServiceQuotasCommand)).toEqual([]);
  });

  it('takes the default value of a type the applied listing leaves out', async () => {
    // Prepare
    quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [] });
    quotas.on(ListAWSDefaultServiceQuotasCommand).resolves({
      Quotas: [{ QuotaName: 'ml.p4d.24xlarge for endpoint usage', QuotaCode: 'L-P4DP4DP4', Value: 0 }],
    });
    const reader = new ServiceQuotasInstanceReader(new ServiceQuotasClient({}));

    // Act
    const found = await reader.endpointInstanceQuotas(['ml.p4d.24xlarge']);

    // Assert
    expect(found).toEqual([
      {
        instanceType: 'ml.p4d.24xlarge',
        quotaName: 'ml.p4d.24xlarge for endpoint usage',
        quotaCode: 'L-P4DP4DP4',
        value: 0,
        source: 'default',
      },
    ]);
    expect(quotas.commandCalls(ListAWSDefaultServiceQuotasCommand).map((call) => call.args[0].input)).toEqual(
      [{ ServiceCode: 'sagemaker', MaxResults: 100 }],
    );
  });

  it('fails with the SDK error when Service Quotas refuses (the caller warns and goes on)', async () => {
    // Prepare
    const denied = Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' });
    quotas.on(ListServiceQuotasCommand).rejects(denied);
    const reader = new ServiceQuotasInstanceReader(new ServiceQuotasClient({}));

    // Act
    const error = await reader.endpointInstanceQuotas(['ml.g5.xlarge']).catch((e: unknown) => e);

    // Assert
    expect((error as Error).name).toBe('AccessDeniedException');
  });
});
