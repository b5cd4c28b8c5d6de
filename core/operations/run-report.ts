import {
  resultsOf,
  isReply,
  type RunRouteRequest,
  runNotFound,
  runOf,
  unexpectedFailure,
} from '../run-status/index.js';
import type { Logger } from '../ports/index.js';
import type { ExecutionReader, ObjectPresigner } from '../run-status/index.js';
import { apiFailure, type ApiReply, ApiErrorCodes, type ReportLinks } from '../contracts/index.js';

/**
 * `GET /runs/{id}/report` and `GET /async-runs/{id}/report`: a presigned GET link for each of the
 * run's report files (optimization: report.json, report.md, report.html; async: the summary's JSON
 * and Markdown). The objects are SSE-KMS encrypted, so nobody downloads them without both
 * s3:GetObject and kms:Decrypt; a link carries the report Lambda's grant for a few minutes, and the
 * caller needs nothing but the link. The report's location is the one the run status gives.
 */

export interface RunReportDeps {
  readonly executions: Pick<ExecutionReader, 'describe'>;
  readonly presigner: ObjectPresigner;
  readonly logger: Logger;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * 15 minutes: enough to download three files, short enough that a link pasted in a chat soon stops
 * working. A link signed with temporary credentials (the Lambda's role) also stops when they expire
 * (Amazon S3 user guide, "Sharing objects with presigned URLs": "If you created a presigned URL
 * using a temporary credential, the URL expires when the credential expires").
 */
export const REPORT_LINK_SECONDS = 900;

export async function runReport(
  request: RunRouteRequest,
  deps: RunReportDeps,
): Promise<ApiReply<ReportLinks>> {
  const run = runOf(request);
  if (isReply(run)) return run;
  try {
    const execution = await deps.executions.describe(run);
    if (execution === undefined) return runNotFound(run);
    const report = resultsOf(run.workflow, execution)?.report;
    if (report === undefined) {
      return apiFailure(
        409,
        ApiErrorCodes.reportNotAvailable,
        `Run "${run.runId}" has no report: it is ${execution.status}${
          execution.error === undefined ? '' : ` (${execution.error})`
        }, expected a run that succeeded or ended with "no recommendation". Read its status and events.`,
      );
    }
    const uris = [report.json, report.markdown, ...(report.html === undefined ? [] : [report.html])];
    const expiresAt = new Date((deps.now ?? Date.now)() + REPORT_LINK_SECONDS * 1000);
    const files = await Promise.all(
      uris.map(async (uri) => ({
        name: uri.slice(uri.lastIndexOf('/') + 1),
        uri,
        url: await deps.presigner.presignGet(uri, REPORT_LINK_SECONDS),
      })),
    );
    return {
      statusCode: 200,
      body: { runId: run.runId, workflow: run.workflow, expiresAt: expiresAt.toISOString(), files },
    };
  } catch (error) {
    return unexpectedFailure(`link the report of run "${run.runId}"`, error, deps.logger);
  }
}
