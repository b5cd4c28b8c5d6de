import { describe, expect, it } from '@jest/globals';
import { AsyncEndpointTelemetry, LocalAsyncEndpointObserver } from '../../../local/platform/telemetry.js';

describe('LocalAsyncEndpointObserver', () => {
  it('averages and maximizes the time in backlog of the requests taken in the window', async () => {
    // Prepare
    const telemetry = new AsyncEndpointTelemetry();
    telemetry.recordQueueWait('ep', 1000, 1100); // before the window
    telemetry.recordQueueWait('ep', 2000, 2100);
    telemetry.recordQueueWait('ep', 2000, 2500);
    telemetry.recordQueueWait('other', 2000, 9000);

    // Act
    const metrics = await new LocalAsyncEndpointObserver(telemetry).backlogMetrics('ep', 2000, 3000);

    // Assert
    expect(metrics.timeInBacklogMs).toEqual({ average: 300, maximum: 500 });
  });

  it('reports the largest backlog in the window, counting the size in effect when it opened', async () => {
    // Prepare
    const telemetry = new AsyncEndpointTelemetry();
    telemetry.recordBacklog('ep', 500, 9);
    telemetry.recordBacklog('ep', 1500, 6);
    telemetry.recordBacklog('ep', 2500, 2);
    telemetry.recordBacklog('ep', 4000, 20); // after the window

    // Act
    const metrics = await new LocalAsyncEndpointObserver(telemetry).backlogMetrics('ep', 2000, 3000);

    // Assert
    expect(metrics.maxBacklogSize).toBe(6);
  });

  it('gives every backlog change in the window, after the size in effect when it opened', async () => {
    // Prepare
    const telemetry = new AsyncEndpointTelemetry();
    telemetry.recordBacklog('ep', 500, 9);
    telemetry.recordBacklog('ep', 1500, 6);
    telemetry.recordBacklog('ep', 2500, 2);
    telemetry.recordBacklog('ep', 4000, 20); // after the window

    // Act
    const series = await new LocalAsyncEndpointObserver(telemetry).backlogSeries('ep', 2000, 3000);

    // Assert
    expect(series).toEqual([
      { atEpochMs: 2000, size: 6 },
      { atEpochMs: 2500, size: 2 },
    ]);
  });

  it('reports nothing for an endpoint it never saw', async () => {
    const observer = new LocalAsyncEndpointObserver(new AsyncEndpointTelemetry());
    expect(await observer.backlogMetrics('unknown', 0, Date.now())).toEqual({});
  });

  it('lists the activities of one variant since a time, with their outcome', async () => {
    // Prepare
    const telemetry = new AsyncEndpointTelemetry();
    telemetry
      .startActivity('ep', 'AllTraffic', { atEpochMs: 100, toInstanceCount: 1, cause: 'old' })
      .succeed(150);
    const out = telemetry.startActivity('ep', 'AllTraffic', {
      atEpochMs: 1000,
      toInstanceCount: 2,
      cause: 'backlog',
    });
    const failed = telemetry.startActivity('ep', 'AllTraffic', {
      atEpochMs: 2000,
      toInstanceCount: 3,
      cause: 'more',
    });
    out.succeed(1800);
    failed.fail(2600, 'process exited with code 1');

    // Act
    const activities = await new LocalAsyncEndpointObserver(telemetry).scalingActivities(
      'ep',
      'AllTraffic',
      500,
    );

    // Assert
    expect(activities).toEqual([
      {
        startEpochMs: 1000,
        endEpochMs: 1800,
        toInstanceCount: 2,
        status: 'Successful',
        description: 'Setting desired instance count to 2. Cause: backlog',
      },
      {
        startEpochMs: 2000,
        endEpochMs: 2600,
        toInstanceCount: 3,
        status: 'Failed',
        description: 'Setting desired instance count to 3. Cause: more. Failed: process exited with code 1',
      },
    ]);
  });
});
