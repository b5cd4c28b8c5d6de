import { describe, expect, it } from '@jest/globals';
import { runEvents } from '../../../core/operations/run-events.js';
import type { HistoryEventLine, RunEventReader, RunRef } from '../../../core/run-status/ports.js';
import { runEventsSchema } from '../../../core/contracts/run-api-contract.js';
import { RUN_ROUTES } from '../../../core/run-status/proxy-event.js';
import { parseRunRouteEvent } from '../../../core/run-status/run-routes.js';
import { proxyEvent, requestOf } from '../run-status/support/proxy-events.js';
import { silentLogger } from '../../support/memory-object-store.js';

function reader(answer: { events: HistoryEventLine[]; truncated: boolean } | undefined) {
  const asked: [RunRef, number][] = [];
  const events: RunEventReader = {
    newest: (run, limit) => {
      asked.push([run, limit]);
      return Promise.resolve(answer);
    },
  };
  return { asked, events };
}

function request(query: Record<string, string> = {}) {
  return requestOf(
    parseRunRouteEvent(
      proxyEvent('/runs/{id}/events', { pathParameters: { id: 'nightly' }, queryStringParameters: query }),
      RUN_ROUTES.events,
    ),
  );
}

describe('runEvents', () => {
  it('answers the newest events oldest first, with the state, error and cause each names', async () => {
    // Prepare
    const { asked, events } = reader({
      truncated: true,
      events: [
        {
          id: 9,
          timestamp: new Date('2026-11-24T08:00:09Z'),
          type: 'TaskFailed',
          error: 'QuotaExceededError',
          cause: 'ml.g5.xlarge quota is 0',
        },
        {
          id: 8,
          timestamp: new Date('2026-11-24T08:00:08Z'),
          type: 'TaskStateEntered',
          state: 'Deploy candidate',
        },
      ],
    });

    // Act
    const reply = await runEvents(request({ limit: '2' }), { events, logger: silentLogger });

    // Assert
    expect(asked).toEqual([[{ workflow: 'optimization', runId: 'nightly' }, 2]]);
    expect(reply).toEqual({
      statusCode: 200,
      body: {
        runId: 'nightly',
        workflow: 'optimization',
        truncated: true,
        events: [
          {
            id: 8,
            timestamp: '2026-11-24T08:00:08.000Z',
            type: 'TaskStateEntered',
            state: 'Deploy candidate',
          },
          {
            id: 9,
            timestamp: '2026-11-24T08:00:09.000Z',
            type: 'TaskFailed',
            error: 'QuotaExceededError',
            cause: 'ml.g5.xlarge quota is 0',
          },
        ],
      },
    });
    expect(runEventsSchema.safeParse(reply.body).success).toBe(true);
  });

  it('reads 200 events when no limit is given', async () => {
    // Prepare
    const { asked, events } = reader({ truncated: false, events: [] });

    // Act
    await runEvents(request(), { events, logger: silentLogger });

    // Assert
    expect(asked.map(([, limit]) => limit)).toEqual([200]);
  });

  it('refuses a limit above one history page (1000) before any call', async () => {
    // Prepare
    const { asked, events } = reader({ truncated: false, events: [] });

    // Act
    const reply = await runEvents(request({ limit: '1001' }), { events, logger: silentLogger });

    // Assert
    expect(asked).toEqual([]);
    expect(reply).toEqual({
      statusCode: 400,
      body: {
        error: 'InvalidRequest',
        message:
          'Invalid query: got {"limit":"1001"}, expected at most "limit", a whole number from 1 to 1000',
      },
    });
  });

  it('answers 404 when the run does not exist', async () => {
    // Prepare
    const { events } = reader(undefined);

    // Act
    const reply = await runEvents(request(), { events, logger: silentLogger });

    // Assert
    expect(reply.statusCode).toBe(404);
  });
});
