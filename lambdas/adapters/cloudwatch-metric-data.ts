import {
  type CloudWatchClient,
  GetMetricDataCommand,
  type GetMetricDataCommandInput,
  type GetMetricDataCommandOutput,
} from '@aws-sdk/client-cloudwatch';
import { TransientServiceError } from '../../core/contracts/index.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';

/**
 * One GetMetricData query over every page, values gathered by query id (a query's results may
 * continue on the next page). What the endpoint-metrics reader and the async observer share.
 * Throttling after the SDK's own retries, and a query CloudWatch answers with `InternalError`
 * (its API reference says to retry), surface as `TransientServiceError`.
 */
export async function fetchMetricData(
  client: CloudWatchClient,
  endpointName: string,
  input: GetMetricDataCommandInput,
): Promise<ReadonlyMap<string, readonly number[]>> {
  const series = await fetchMetricSeries(client, endpointName, input);
  return new Map([...series].map(([id, points]) => [id, points.map((point) => point.value)]));
}

/** A query's data point: the start of its period and its value. */
export interface MetricPoint {
  readonly atEpochMs: number;
  readonly value: number;
}

/**
 * `fetchMetricData` with each value's timestamp, in the order CloudWatch answers (GetMetricData
 * returns `Timestamps` and `Values` in matching order, newest first unless `ScanBy` says otherwise).
 */
export async function fetchMetricSeries(
  client: CloudWatchClient,
  endpointName: string,
  input: GetMetricDataCommandInput,
): Promise<ReadonlyMap<string, readonly MetricPoint[]>> {
  const values = new Map<string, MetricPoint[]>();
  let nextToken: string | undefined;
  do {
    const page = await send(client, endpointName, {
      ...input,
      ...(nextToken === undefined ? {} : { NextToken: nextToken }),
    });
    for (const result of page.MetricDataResults ?? []) {
      if (result.StatusCode === 'InternalError') {
        throw new TransientServiceError(
          `GetMetricData for endpoint ${endpointName}: CloudWatch answered InternalError for ${result.Id ?? 'a query'} ` +
            '(its API reference says to retry the request). The workflow retries the step with a longer backoff.',
          { operation: 'GetMetricData', endpointName, queryId: result.Id },
        );
      }
      if (result.Id === undefined) continue;
      const timestamps = result.Timestamps ?? [];
      const points = (result.Values ?? []).map((value, index) => ({
        atEpochMs: timestamps[index]?.getTime() ?? Number.NaN,
        value,
      }));
      values.set(result.Id, [...(values.get(result.Id) ?? []), ...points]);
    }
    nextToken = page.NextToken === '' ? undefined : page.NextToken;
  } while (nextToken !== undefined);
  return values;
}

async function send(
  client: CloudWatchClient,
  endpointName: string,
  input: GetMetricDataCommandInput,
): Promise<GetMetricDataCommandOutput> {
  try {
    return await client.send(new GetMetricDataCommand(input));
  } catch (error) {
    if (!isTransient(error)) throw error;
    const name = errorName(error);
    throw new TransientServiceError(
      `GetMetricData for endpoint ${endpointName} failed after the SDK's own retries: ${name ?? 'Error'}: ` +
        `${errorMessage(error)}. The workflow retries the step with a longer backoff; if this persists, other ` +
        "workloads in the account are using up CloudWatch's GetMetricData request rate.",
      { operation: 'GetMetricData', endpointName, errorName: name },
      { cause: error },
    );
  }
}
