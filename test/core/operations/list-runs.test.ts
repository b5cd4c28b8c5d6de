import { describe, expect, it } from '@jest/globals';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import { listRuns } from '../../../core/operations/list-runs.js';
import type { ListedExecution, RunLister } from '../../../core/run-status/ports.js';
import { RUN_ROUTES } from '../../../core/run-status/proxy-event.js';
import { parseRunRouteEvent } from '../../../core/run-status/run-routes.js';
import { proxyEvent, requestOf, invalidRequestRefusal } from '../run-status/support/proxy-events.js';
import { runListSchema } from '../../../core/contracts/run-api-contract.js';
import { silentLogger } from '../../support/memory-object-store.js';

const EXECUTION_ARN = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly';

/** A lister that records each request and answers with what the test gives it. */
function fakeLister(answer: { executions: ListedExecution[]; truncated: boolean } | Error) {
  const requests: Parameters<RunLister['list']>[0][] = [];
  const lister: RunLister = {
    list: (request) => {
      requests.push(request);
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  };
  return { lister, requests };
}

function request(query: Record<string, string> = {}, resource = '/runs') {
  return requestOf(
    parseRunRouteEvent(proxyEvent(resource, { queryStringParameters: query }), RUN_ROUTES.list),
  );
}

describe('listRuns', () => {
  it('passes the filters on and answers the runs with ISO dates, as the contract says', async () => {
    // Prepare
    const { lister, requests } = fakeLister({
      executions: [
        {
          name: 'nightly',
          executionArn: EXECUTION_ARN,
          status: 'SUCCEEDED',
          startDate: new Date('2026-11-24T08:00:00Z'),
          stopDate: new Date('2026-11-24T09:00:00Z'),
        },
      ],
      truncated: true,
    });

    // Act
    const reply = await listRuns(request({ status: 'SUCCEEDED', since: '2026-11-24', limit: '1' }), {
      lister,
      logger: silentLogger,
    });

    // Assert
    expect(requests).toEqual([
      { workflow: 'optimization', status: 'SUCCEEDED', since: new Date('2026-11-24T00:00:00Z'), limit: 1 },
    ]);
    expect(reply).toEqual({
      statusCode: 200,
      body: {
        runs: [
          {
            runId: 'nightly',
            workflow: 'optimization',
            status: 'SUCCEEDED',
            executionArn: EXECUTION_ARN,
            startDate: '2026-11-24T08:00:00.000Z',
            stopDate: '2026-11-24T09:00:00.000Z',
          },
        ],
        truncated: true,
      },
    });
    expect(runListSchema.safeParse(reply.body).success).toBe(true);
  });

  it('lists the async-inference runs on /async-runs, 50 at most by default', async () => {
    // Prepare
    const { lister, requests } = fakeLister({ executions: [], truncated: false });

    // Act
    await listRuns(request({}, '/async-runs'), { lister, logger: silentLogger });

    // Assert
    expect(requests).toEqual([{ workflow: 'async-inference', limit: 50 }]);
  });

  it('refuses a bad query naming every parameter, before any call', async () => {
    // Prepare
    const { lister, requests } = fakeLister({ executions: [], truncated: false });

    // Act
    const reply = await listRuns(
      request({ status: 'PENDING_REDRIVE', since: 'yesterday', limit: '5000', order: 'asc' }),
      { lister, logger: silentLogger },
    );

    // Assert
    expect(requests).toEqual([]);
    expect(reply).toEqual({
      statusCode: 400,
      body: {
        error: 'InvalidRequest',
        message:
          'Invalid query: got the parameter "order", expected only status, since, limit; ' +
          'status: got "PENDING_REDRIVE", expected one of RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED; ' +
          'since: got "yesterday", expected an ISO 8601 date such as 2026-11-24 or 2026-11-24T08:00:00Z; ' +
          'limit: got "5000", expected a whole number from 1 to 1000',
      },
    });
  });

  it('answers 503 when Step Functions is unavailable', async () => {
    // Prepare
    const { lister } = fakeLister(
      new TransientServiceError('Step Functions ListExecutions failed: Throttling'),
    );

    // Act
    const reply = await listRuns(request(), { lister, logger: silentLogger });

    // Assert
    expect(reply).toEqual({
      statusCode: 503,
      body: {
        error: 'ServiceUnavailable',
        message:
          'Could not list the optimization runs now (TransientServiceError: Step Functions ListExecutions ' +
          'failed: Throttling): retry in a few seconds',
      },
    });
  });

  it('answers 400 to an event of another route, naming the ones it serves', () => {
    // Act
    const parsed = parseRunRouteEvent(proxyEvent('/runs/{id}'), RUN_ROUTES.list);

    // Assert
    expect(parsed).toEqual(
      invalidRequestRefusal([
        {
          field: 'resource',
          given: '"/runs/{id}"',
          expected: 'one of /runs, /async-runs (the routes list-runs serves)',
        },
      ]),
    );
  });
});
