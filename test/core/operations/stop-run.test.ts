import { describe, expect, it } from '@jest/globals';
import type { ExecutionDescription, RunRef, RunStopper } from '../../../core/run-status/ports.js';
import { RUN_ROUTES } from '../../../core/run-status/proxy-event.js';
import { parseRunRouteEvent } from '../../../core/run-status/run-routes.js';
import { proxyEvent, requestOf } from '../run-status/support/proxy-events.js';
import { stopRun } from '../../../core/operations/stop-run.js';
import { silentLogger } from '../../support/memory-object-store.js';

const EXECUTION_ARN = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly';
const CALLER = 'arn:aws:iam::123456789012:user/operator';
const running: ExecutionDescription = {
  executionArn: EXECUTION_ARN,
  status: 'RUNNING',
  startDate: new Date('2026-11-24T08:00:00Z'),
};

function deps(description: ExecutionDescription | undefined) {
  const stopped: [RunRef, { error: string; cause: string }][] = [];
  const stopper: RunStopper = {
    stop: (run, reason) => {
      stopped.push([run, reason]);
      return Promise.resolve({ stopDate: new Date('2026-11-24T08:30:00Z') });
    },
  };
  return {
    stopped,
    deps: { executions: { describe: () => Promise.resolve(description) }, stopper, logger: silentLogger },
  };
}

function request(id: string, resource = '/runs/{id}/stop') {
  return requestOf(
    parseRunRouteEvent(
      proxyEvent(resource, { pathParameters: { id }, requestContext: { identity: { userArn: CALLER } } }),
      RUN_ROUTES.stop,
    ),
  );
}

describe('stopRun', () => {
  it('stops a running run, saying who stopped it, and answers when it stopped', async () => {
    // Prepare
    const { stopped, deps: stopDeps } = deps(running);

    // Act
    const reply = await stopRun(request('nightly'), stopDeps);

    // Assert
    expect(stopped).toEqual([
      [
        { workflow: 'optimization', runId: 'nightly' },
        { error: 'RunStopped', cause: `Stopped through the run API by ${CALLER}` },
      ],
    ]);
    expect(reply).toEqual({
      statusCode: 200,
      body: {
        runId: 'nightly',
        workflow: 'optimization',
        executionArn: EXECUTION_ARN,
        stopDate: '2026-11-24T08:30:00.000Z',
      },
    });
  });

  it('refuses a run that has already ended with 409 and its status, stopping nothing', async () => {
    // Prepare
    const { stopped, deps: stopDeps } = deps({
      ...running,
      status: 'SUCCEEDED',
      stopDate: new Date('2026-11-24T09:00:00Z'),
    });

    // Act
    const reply = await stopRun(request('nightly'), stopDeps);

    // Assert
    expect(stopped).toEqual([]);
    expect(reply).toEqual({
      statusCode: 409,
      body: {
        error: 'RunNotRunning',
        message:
          'Run "nightly" is not running: it is SUCCEEDED since 2026-11-24T09:00:00.000Z, expected RUNNING. ' +
          'Nothing was stopped.',
      },
    });
  });

  it('answers 404 for a run Step Functions does not know', async () => {
    // Prepare
    const { deps: stopDeps } = deps(undefined);

    // Act
    const reply = await stopRun(request('nightly', '/async-runs/{id}/stop'), stopDeps);

    // Assert
    expect(reply.statusCode).toBe(404);
    expect(reply.body).toEqual({
      error: 'RunNotFound',
      message:
        'No async-inference run "nightly": Step Functions has no execution by that name (it keeps ended ' +
        'executions for 90 days). Check the run id and the API (/async-runs)',
    });
  });

  it('refuses an invalid run id with 400 before any call', async () => {
    // Prepare
    const { stopped, deps: stopDeps } = deps(running);

    // Act
    const reply = await stopRun(request('no spaces'), stopDeps);

    // Assert
    expect(stopped).toEqual([]);
    expect(reply).toEqual({
      statusCode: 400,
      body: {
        error: 'InvalidRunId',
        message:
          'Invalid run id: got "no spaces", expected 1 to 80 letters, digits, "-" or "_" (it becomes the execution name)',
      },
    });
  });
});
