import {
  DescribeExecutionCommand,
  ListExecutionsCommand,
  SFNClient,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import type * as ListRunsEntry from '../../lambdas/list-runs.js';
import type * as RunReportEntry from '../../lambdas/run-report.js';
import type * as StopRunEntry from '../../lambdas/stop-run.js';
import { fakeContext, setStepEnvironment } from './support/fake-context.js';

/**
 * The list-runs, stop-run and run-report entries end to end: middy and Powertools, the real
 * adapters and cores, only the Step Functions client mocked, events as API Gateway's Lambda proxy
 * integration sends them.
 */

const STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const EXECUTION_ARN = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly';
const CALLER = 'arn:aws:iam::123456789012:user/operator';
setStepEnvironment({
  OPTIMIZATION_STATE_MACHINE_ARN: STATE_MACHINE_ARN,
  AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  AWS_SESSION_TOKEN: 'lambda-session',
});

const sfn = mockClient(SFNClient);
let listRuns: typeof ListRunsEntry;
let stopRun: typeof StopRunEntry;
let runReport: typeof RunReportEntry;

beforeAll(async () => {
  listRuns = await import('../../lambdas/list-runs.js');
  stopRun = await import('../../lambdas/stop-run.js');
  runReport = await import('../../lambdas/run-report.js');
});

beforeEach(() => {
  sfn.reset();
});

function proxyEvent(resource: string, extra: Record<string, unknown> = {}) {
  return { resource, requestContext: { identity: { userArn: CALLER } }, ...extra };
}

describe('run API entries', () => {
  it('list-runs answers GET /runs?status= with the listed runs', async () => {
    // Prepare
    sfn.on(ListExecutionsCommand).resolves({
      executions: [
        {
          name: 'nightly',
          executionArn: EXECUTION_ARN,
          stateMachineArn: STATE_MACHINE_ARN,
          status: 'RUNNING',
          startDate: new Date('2026-11-24T08:00:00Z'),
        },
      ],
    });

    // Act
    const result = await listRuns.handler(
      proxyEvent('/runs', { queryStringParameters: { status: 'RUNNING' } }),
      fakeContext(),
    );

    // Assert
    expect(sfn.commandCalls(ListExecutionsCommand)[0]?.args[0].input).toEqual({
      stateMachineArn: STATE_MACHINE_ARN,
      maxResults: 51,
      statusFilter: 'RUNNING',
    });
    expect([result.statusCode, JSON.parse(result.body)]).toEqual([
      200,
      {
        runs: [
          {
            runId: 'nightly',
            workflow: 'optimization',
            status: 'RUNNING',
            executionArn: EXECUTION_ARN,
            startDate: '2026-11-24T08:00:00.000Z',
          },
        ],
        truncated: false,
      },
    ]);
  });

  it('stop-run answers POST /runs/{id}/stop by stopping the running execution in the caller’s name', async () => {
    // Prepare
    sfn.on(DescribeExecutionCommand).resolves({
      executionArn: EXECUTION_ARN,
      stateMachineArn: STATE_MACHINE_ARN,
      status: 'RUNNING',
      startDate: new Date('2026-11-24T08:00:00Z'),
    });
    sfn.on(StopExecutionCommand).resolves({ stopDate: new Date('2026-11-24T08:10:00Z') });

    // Act
    const result = await stopRun.handler(
      proxyEvent('/runs/{id}/stop', { pathParameters: { id: 'nightly' } }),
      fakeContext(),
    );

    // Assert
    expect(sfn.commandCalls(StopExecutionCommand)[0]?.args[0].input).toEqual({
      executionArn: EXECUTION_ARN,
      error: 'RunStopped',
      cause: `Stopped through the run API by ${CALLER}`,
    });
    expect(result.statusCode).toBe(200);
  });

  it('run-report answers GET /runs/{id}/report with links signed by the Lambda’s session credentials', async () => {
    // Prepare
    sfn.on(DescribeExecutionCommand).resolves({
      executionArn: EXECUTION_ARN,
      stateMachineArn: STATE_MACHINE_ARN,
      status: 'SUCCEEDED',
      startDate: new Date('2026-11-24T08:00:00Z'),
      output: JSON.stringify({
        outcome: 'recommended',
        report: {
          json: 's3://mso-artifacts/runs/nightly/report.json',
          markdown: 's3://mso-artifacts/runs/nightly/report.md',
          html: 's3://mso-artifacts/runs/nightly/report.html',
        },
      }),
    });

    // Act
    const result = await runReport.handler(
      proxyEvent('/runs/{id}/report', { pathParameters: { id: 'nightly' } }),
      fakeContext(),
    );

    // Assert
    expect(result.statusCode).toBe(200);
    const body = JSON.parse(result.body) as { files: { name: string; url: string }[] };
    expect(body.files.map(({ name }) => name)).toEqual(['report.json', 'report.md', 'report.html']);
    const url = new URL(body.files[0]?.url ?? '');
    expect(`${url.origin}${url.pathname}`).toBe(
      'https://mso-artifacts.s3.us-east-1.amazonaws.com/runs/nightly/report.json',
    );
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('lambda-session');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
  });
});
