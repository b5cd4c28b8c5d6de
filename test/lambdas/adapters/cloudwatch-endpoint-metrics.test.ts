import {
  CloudWatchClient,
  CloudWatchServiceException,
  GetMetricDataCommand,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import type { EndpointMetricsQuery } from '../../../core/ports/index.js';
import {
  CloudWatchEndpointMetrics,
  metricsWindow,
} from '../../../lambdas/adapters/cloudwatch-endpoint-metrics.js';

const ENDPOINT = 'mso-nightly-1a2b3c4d-ep-ml-c5-large';
const DAY_MS = 86_400_000;

/** A load test from 12:32:34.500 to 12:35:10.200, read five minutes later. */
const QUERY: EndpointMetricsQuery = {
  endpointName: ENDPOINT,
  variantName: 'AllTraffic',
  startEpochMs: Date.parse('2025-03-10T12:32:34.500Z'),
  endEpochMs: Date.parse('2025-03-10T12:35:10.200Z'),
};
const NOW = Date.parse('2025-03-10T12:40:00Z');

const cloudwatch = mockClient(CloudWatchClient);
const reader = new CloudWatchEndpointMetrics({
  client: new CloudWatchClient({ region: 'us-east-1' }),
  now: () => NOW,
});

/** One data point per query id, as CloudWatch answers for a window-sized period. */
function results(values: Readonly<Record<string, number>>): MetricDataResult[] {
  return Object.entries(values).map(([id, value]) => ({
    Id: id,
    Label: id,
    Timestamps: [new Date('2025-03-10T12:32:00Z')],
    Values: [value],
    StatusCode: 'Complete',
  }));
}

/** A CPU instance under load: no GPU metric has data. */
const CPU_INSTANCE_RESULTS = {
  modelLatencyMs_average: 6150,
  modelLatencyMs_maximum: 48_200,
  overheadLatencyMs_average: 1250,
  overheadLatencyMs_maximum: 9800,
  cpuUtilizationPercent_average: 187.5,
  cpuUtilizationPercent_maximum: 196,
  memoryUtilizationPercent_average: 12.5,
  memoryUtilizationPercent_maximum: 13.1,
};

function cloudWatchError(
  name: string,
  fault: 'client' | 'server',
  status: number,
): CloudWatchServiceException {
  return new CloudWatchServiceException({
    name,
    message: `${name} from CloudWatch`,
    $fault: fault,
    $metadata: { httpStatusCode: status },
  });
}

function expectedQuery(id: string, namespace: string, metricName: string, stat: string, unit: string) {
  return {
    Id: id,
    MetricStat: {
      Metric: {
        Namespace: namespace,
        MetricName: metricName,
        Dimensions: [
          { Name: 'EndpointName', Value: ENDPOINT },
          { Name: 'VariantName', Value: 'AllTraffic' },
        ],
      },
      Period: 240,
      Stat: stat,
      Unit: unit,
    },
    ReturnData: true,
  };
}

describe('CloudWatchEndpointMetrics', () => {
  beforeEach(() => {
    cloudwatch.reset();
  });

  it('asks in one call for Average and Maximum of the six endpoint metrics over the whole-minute window', async () => {
    // Arrange
    cloudwatch.on(GetMetricDataCommand).resolves({ MetricDataResults: results(CPU_INSTANCE_RESULTS) });

    // Act
    await reader.read(QUERY);

    // Assert
    const calls = cloudwatch.commandCalls(GetMetricDataCommand);
    expect(calls).toHaveLength(1);
    const sageMaker = 'AWS/SageMaker';
    const instances = '/aws/sagemaker/Endpoints';
    expect(calls[0]?.args[0].input).toEqual({
      MetricDataQueries: [
        expectedQuery('modelLatencyMs_average', sageMaker, 'ModelLatency', 'Average', 'Microseconds'),
        expectedQuery('modelLatencyMs_maximum', sageMaker, 'ModelLatency', 'Maximum', 'Microseconds'),
        expectedQuery('overheadLatencyMs_average', sageMaker, 'OverheadLatency', 'Average', 'Microseconds'),
        expectedQuery('overheadLatencyMs_maximum', sageMaker, 'OverheadLatency', 'Maximum', 'Microseconds'),
        expectedQuery('cpuUtilizationPercent_average', instances, 'CPUUtilization', 'Average', 'Percent'),
        expectedQuery('cpuUtilizationPercent_maximum', instances, 'CPUUtilization', 'Maximum', 'Percent'),
        expectedQuery(
          'memoryUtilizationPercent_average',
          instances,
          'MemoryUtilization',
          'Average',
          'Percent',
        ),
        expectedQuery(
          'memoryUtilizationPercent_maximum',
          instances,
          'MemoryUtilization',
          'Maximum',
          'Percent',
        ),
        expectedQuery('gpuUtilizationPercent_average', instances, 'GPUUtilization', 'Average', 'Percent'),
        expectedQuery('gpuUtilizationPercent_maximum', instances, 'GPUUtilization', 'Maximum', 'Percent'),
        expectedQuery(
          'gpuMemoryUtilizationPercent_average',
          instances,
          'GPUMemoryUtilization',
          'Average',
          'Percent',
        ),
        expectedQuery(
          'gpuMemoryUtilizationPercent_maximum',
          instances,
          'GPUMemoryUtilization',
          'Maximum',
          'Percent',
        ),
      ],
      // 12:32:34.5 rounded down and 12:35:10.2 rounded up to whole minutes: one 240 s period.
      StartTime: new Date('2025-03-10T12:32:00Z'),
      EndTime: new Date('2025-03-10T12:36:00Z'),
    });
  });

  it('reports latencies in milliseconds (CloudWatch has them in microseconds) and utilization as given', async () => {
    cloudwatch.on(GetMetricDataCommand).resolves({ MetricDataResults: results(CPU_INSTANCE_RESULTS) });

    const metrics = await reader.read(QUERY);

    expect(metrics).toEqual({
      source: 'cloudwatch',
      modelLatencyMs: { average: 6.15, maximum: 48.2 },
      overheadLatencyMs: { average: 1.25, maximum: 9.8 },
      cpuUtilizationPercent: { average: 187.5, maximum: 196 },
      memoryUtilizationPercent: { average: 12.5, maximum: 13.1 },
    });
  });

  it('leaves out the GPU metrics when CloudWatch has no data points for them (a CPU instance)', async () => {
    const noData = [
      { Id: 'gpuUtilizationPercent_average', Timestamps: [], Values: [], StatusCode: 'Complete' as const },
      { Id: 'gpuUtilizationPercent_maximum', Timestamps: [], Values: [], StatusCode: 'Complete' as const },
    ];
    cloudwatch
      .on(GetMetricDataCommand)
      .resolves({ MetricDataResults: [...results(CPU_INSTANCE_RESULTS), ...noData] });

    const metrics = await reader.read(QUERY);

    expect(metrics).not.toHaveProperty('gpuUtilizationPercent');
    expect(metrics).not.toHaveProperty('gpuMemoryUtilizationPercent');
    expect(metrics?.cpuUtilizationPercent).toEqual({ average: 187.5, maximum: 196 });
  });

  it('reports GPU utilization when the instance has GPUs', async () => {
    cloudwatch.on(GetMetricDataCommand).resolves({
      MetricDataResults: results({
        gpuUtilizationPercent_average: 71.5,
        gpuUtilizationPercent_maximum: 98,
        gpuMemoryUtilizationPercent_average: 40,
        gpuMemoryUtilizationPercent_maximum: 41.5,
      }),
    });

    const metrics = await reader.read(QUERY);

    expect(metrics).toEqual({
      source: 'cloudwatch',
      gpuUtilizationPercent: { average: 71.5, maximum: 98 },
      gpuMemoryUtilizationPercent: { average: 40, maximum: 41.5 },
    });
  });

  it('returns undefined when no metric has a data point (e.g. a window too recent for CloudWatch)', async () => {
    cloudwatch.on(GetMetricDataCommand).resolves({
      MetricDataResults: [
        { Id: 'modelLatencyMs_average', Timestamps: [], Values: [], StatusCode: 'Complete' },
        { Id: 'cpuUtilizationPercent_average', Timestamps: [], Values: [], StatusCode: 'Complete' },
      ],
    });

    await expect(reader.read(QUERY)).resolves.toBeUndefined();
  });

  it('follows NextToken and combines the results of every page', async () => {
    // Arrange: the latencies on the first page, utilization on the second.
    const { cpuUtilizationPercent_average, cpuUtilizationPercent_maximum, ...latencies } = {
      modelLatencyMs_average: 6150,
      modelLatencyMs_maximum: 48_200,
      cpuUtilizationPercent_average: 187.5,
      cpuUtilizationPercent_maximum: 196,
    };
    cloudwatch
      .on(GetMetricDataCommand)
      .resolvesOnce({ MetricDataResults: results(latencies), NextToken: 'page-2' })
      .resolvesOnce({
        MetricDataResults: results({ cpuUtilizationPercent_average, cpuUtilizationPercent_maximum }),
      });

    // Act
    const metrics = await reader.read(QUERY);

    // Assert
    const calls = cloudwatch.commandCalls(GetMetricDataCommand);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.args[0].input.NextToken).toBeUndefined();
    expect(calls[1]?.args[0].input.NextToken).toBe('page-2');
    expect(calls[1]?.args[0].input.MetricDataQueries).toEqual(calls[0]?.args[0].input.MetricDataQueries);
    expect(metrics).toEqual({
      source: 'cloudwatch',
      modelLatencyMs: { average: 6.15, maximum: 48.2 },
      cpuUtilizationPercent: { average: 187.5, maximum: 196 },
    });
  });

  it('fails when CloudWatch throttles beyond the SDK retries, with TransientServiceError', async () => {
    cloudwatch.on(GetMetricDataCommand).rejects(cloudWatchError('Throttling', 'client', 400));

    const error = await reader.read(QUERY).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TransientServiceError);
    expect((error as Error).message).toContain(`GetMetricData for endpoint ${ENDPOINT}`);
    expect((error as Error).message).toContain('Throttling');
    expect((error as TransientServiceError).cause).toBeInstanceOf(CloudWatchServiceException);
  });

  it('fails when CloudWatch has an internal fault, with TransientServiceError', async () => {
    cloudwatch.on(GetMetricDataCommand).rejects(cloudWatchError('InternalServiceFault', 'server', 500));

    await expect(reader.read(QUERY)).rejects.toBeInstanceOf(TransientServiceError);
  });

  it('fails when a query result reports InternalError, with TransientServiceError', async () => {
    cloudwatch.on(GetMetricDataCommand).resolves({
      MetricDataResults: [
        { Id: 'modelLatencyMs_average', Timestamps: [], Values: [], StatusCode: 'InternalError' },
      ],
    });

    const error = await reader.read(QUERY).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TransientServiceError);
    expect((error as Error).message).toContain(
      `GetMetricData for endpoint ${ENDPOINT}: CloudWatch answered InternalError for modelLatencyMs_average`,
    );
  });

  it('fails when access is denied, with the SDK error unchanged (an IAM fix, not a retry)', async () => {
    const denied = cloudWatchError('AccessDenied', 'client', 403);
    cloudwatch.on(GetMetricDataCommand).rejects(denied);

    await expect(reader.read(QUERY)).rejects.toBe(denied);
  });

  it('fails when a query returns more than one data point, since the period must span the window', async () => {
    cloudwatch.on(GetMetricDataCommand).resolves({
      MetricDataResults: [
        {
          Id: 'modelLatencyMs_average',
          Timestamps: [new Date('2025-03-10T12:32:00Z'), new Date('2025-03-10T12:33:00Z')],
          Values: [6000, 6300],
          StatusCode: 'Complete',
        },
      ],
    });

    await expect(reader.read(QUERY)).rejects.toThrow('got 2 data points for modelLatencyMs_average');
  });
});

describe('metricsWindow', () => {
  it('widens a window within a single minute to that whole minute', () => {
    const window = metricsWindow(
      {
        ...QUERY,
        startEpochMs: Date.parse('2025-03-10T12:32:10Z'),
        endEpochMs: Date.parse('2025-03-10T12:32:50Z'),
      },
      NOW,
    );

    expect(window).toEqual({
      startTime: new Date('2025-03-10T12:32:00Z'),
      endTime: new Date('2025-03-10T12:33:00Z'),
      periodSeconds: 60,
    });
  });

  it('gives an empty window on a minute boundary one whole minute, never a zero period', () => {
    const instant = Date.parse('2025-03-10T12:32:00Z');

    const window = metricsWindow({ ...QUERY, startEpochMs: instant, endEpochMs: instant }, NOW);

    expect(window.periodSeconds).toBe(60);
    expect(window.endTime).toEqual(new Date('2025-03-10T12:33:00Z'));
  });

  it('aligns to 5 minutes once the window is over 15 days old, as CloudWatch keeps no finer data', () => {
    const window = metricsWindow(QUERY, QUERY.startEpochMs + 20 * DAY_MS);

    expect(window).toEqual({
      startTime: new Date('2025-03-10T12:30:00Z'),
      endTime: new Date('2025-03-10T12:40:00Z'),
      periodSeconds: 600,
    });
  });

  it('aligns to the hour once the window is over 63 days old', () => {
    const window = metricsWindow(QUERY, QUERY.startEpochMs + 100 * DAY_MS);

    expect(window).toEqual({
      startTime: new Date('2025-03-10T12:00:00Z'),
      endTime: new Date('2025-03-10T13:00:00Z'),
      periodSeconds: 3600,
    });
  });

  it('fails when the window ends before it starts', () => {
    expect(() => metricsWindow({ ...QUERY, endEpochMs: QUERY.startEpochMs - 1 }, NOW)).toThrow(
      `Endpoint metrics window for ${ENDPOINT}: got startEpochMs ${QUERY.startEpochMs} and endEpochMs ` +
        `${QUERY.startEpochMs - 1}, expected finite epoch milliseconds with endEpochMs at or after startEpochMs`,
    );
  });
});
