import { describe, expect, it } from '@jest/globals';
import { runReport } from '../../../core/operations/run-report.js';
import type { ExecutionDescription, ObjectPresigner } from '../../../core/run-status/ports.js';
import { reportLinksSchema } from '../../../core/contracts/run-api-contract.js';
import { RUN_ROUTES } from '../../../core/run-status/proxy-event.js';
import { parseRunRouteEvent } from '../../../core/run-status/run-routes.js';
import { proxyEvent, requestOf } from '../run-status/support/proxy-events.js';
import { silentLogger } from '../../support/memory-object-store.js';

const EXECUTION_ARN = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly';
const REPORT = {
  json: 's3://mso-artifacts/runs/nightly/report.json',
  markdown: 's3://mso-artifacts/runs/nightly/report.md',
  html: 's3://mso-artifacts/runs/nightly/report.html',
};
const NOW = Date.parse('2026-11-24T10:00:00Z');

function deps(description: ExecutionDescription | undefined) {
  const signed: [string, number][] = [];
  const presigner: ObjectPresigner = {
    presignGet: (uri, seconds) => {
      signed.push([uri, seconds]);
      return Promise.resolve(`https://signed/${uri.slice('s3://'.length)}`);
    },
  };
  return {
    signed,
    deps: {
      executions: { describe: () => Promise.resolve(description) },
      presigner,
      logger: silentLogger,
      now: () => NOW,
    },
  };
}

function request(resource = '/runs/{id}/report') {
  return requestOf(
    parseRunRouteEvent(proxyEvent(resource, { pathParameters: { id: 'nightly' } }), RUN_ROUTES.report),
  );
}

describe('runReport', () => {
  it('links each report file of a succeeded run for 15 minutes', async () => {
    // Prepare
    const { signed, deps: reportDeps } = deps({
      executionArn: EXECUTION_ARN,
      status: 'SUCCEEDED',
      startDate: new Date(NOW - 3_600_000),
      output: JSON.stringify({ outcome: 'recommended', report: REPORT }),
    });

    // Act
    const reply = await runReport(request(), reportDeps);

    // Assert
    expect(signed).toEqual([
      [REPORT.json, 900],
      [REPORT.markdown, 900],
      [REPORT.html, 900],
    ]);
    expect(reply).toEqual({
      statusCode: 200,
      body: {
        runId: 'nightly',
        workflow: 'optimization',
        expiresAt: '2026-11-24T10:15:00.000Z',
        files: [
          {
            name: 'report.json',
            uri: REPORT.json,
            url: 'https://signed/mso-artifacts/runs/nightly/report.json',
          },
          {
            name: 'report.md',
            uri: REPORT.markdown,
            url: 'https://signed/mso-artifacts/runs/nightly/report.md',
          },
          {
            name: 'report.html',
            uri: REPORT.html,
            url: 'https://signed/mso-artifacts/runs/nightly/report.html',
          },
        ],
      },
    });
    expect(reportLinksSchema.safeParse(reply.body).success).toBe(true);
  });

  it('links the report of a run that ended in "no recommendation", read from its cause', async () => {
    // Prepare
    const { signed, deps: reportDeps } = deps({
      executionArn: EXECUTION_ARN,
      status: 'FAILED',
      startDate: new Date(NOW - 3_600_000),
      error: 'NoRecommendationError',
      cause: JSON.stringify({ outcome: 'no-candidate-met-sla', report: REPORT }),
    });

    // Act
    const reply = await runReport(request(), reportDeps);

    // Assert
    expect(reply.statusCode).toBe(200);
    expect(signed.map(([uri]) => uri)).toEqual([REPORT.json, REPORT.markdown, REPORT.html]);
  });

  it('links the async summary files of an async run', async () => {
    // Prepare
    const { signed, deps: reportDeps } = deps({
      executionArn: EXECUTION_ARN,
      status: 'SUCCEEDED',
      startDate: new Date(NOW - 3_600_000),
      output: JSON.stringify({
        outcome: 'completed',
        summaryUri: 's3://mso-artifacts/runs/nightly/async/summary.json',
        summaryMarkdownUri: 's3://mso-artifacts/runs/nightly/async/summary.md',
      }),
    });

    // Act
    await runReport(request('/async-runs/{id}/report'), reportDeps);

    // Assert
    expect(signed.map(([uri]) => uri)).toEqual([
      's3://mso-artifacts/runs/nightly/async/summary.json',
      's3://mso-artifacts/runs/nightly/async/summary.md',
    ]);
  });

  it("links an async run's report page when its summary names one", async () => {
    // Prepare
    const { signed, deps: reportDeps } = deps({
      executionArn: EXECUTION_ARN,
      status: 'SUCCEEDED',
      startDate: new Date(NOW - 3_600_000),
      output: JSON.stringify({
        outcome: 'completed',
        summaryUri: 's3://mso-artifacts/runs/nightly/async/summary.json',
        summaryMarkdownUri: 's3://mso-artifacts/runs/nightly/async/summary.md',
        reportUri: 's3://mso-artifacts/runs/nightly/async/report.json',
        reportHtmlUri: 's3://mso-artifacts/runs/nightly/async/report.html',
      }),
    });

    // Act
    await runReport(request('/async-runs/{id}/report'), reportDeps);

    // Assert
    expect(signed.map(([uri]) => uri)).toEqual([
      's3://mso-artifacts/runs/nightly/async/summary.json',
      's3://mso-artifacts/runs/nightly/async/summary.md',
      's3://mso-artifacts/runs/nightly/async/report.html',
    ]);
  });

  it('refuses a run without a report with 409, its status and error, signing nothing', async () => {
    // Prepare
    const { signed, deps: reportDeps } = deps({
      executionArn: EXECUTION_ARN,
      status: 'FAILED',
      startDate: new Date(NOW - 3_600_000),
      error: 'QuotaExceededError',
      cause: 'ml.g5.xlarge',
    });

    // Act
    const reply = await runReport(request(), reportDeps);

    // Assert
    expect(signed).toEqual([]);
    expect(reply).toEqual({
      statusCode: 409,
      body: {
        error: 'ReportNotAvailable',
        message:
          'Run "nightly" has no report: it is FAILED (QuotaExceededError), expected a run that succeeded or ' +
          'ended with "no recommendation". Read its status and events.',
      },
    });
  });
});
