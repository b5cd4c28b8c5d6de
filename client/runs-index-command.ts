import { join } from 'node:path';
import {
  describeError,
  ApiErrorCodes,
  describeInvalidRunId,
  isTerminalStatus,
  type ReportLinks,
  type RunListItem,
  type RunWorkflow,
} from '../core/contracts/index.js';
import {
  indexEntryOfDocument,
  renderRunsIndexHtml,
  RUNS_INDEX_HTML,
  RUNS_INDEX_JSON,
  type RunsIndexDocument,
  type RunsIndexEntry,
  RunsIndexOutcomes,
  runsIndexDocument,
  runsIndexOutcomeLabel,
} from '../core/report/index.js';
import { RunApiError } from './errors.js';
import type { RunApiClient } from './run-api-client.js';

/**
 * `npm run -s runs -- index`: the runs index of the deployed stack. It lists each workflow's runs
 * through the run API, downloads every ended run's report files into `<out>/<run id>/` (as
 * `runs report` does, through the same file writer), and writes `<out>/index.html` and
 * `index.json` with the page the local runs write (core/report/runs-index.ts), its links
 * relative, so the folder opens offline and can be moved as a whole.
 */

/** Report documents, by the name the API gives their file: the optimization's, then the async summary. */
const REPORT_DOCUMENTS = ['report.json', 'summary.json'] as const;

export interface ApiRunsIndexOptions {
  readonly client: Pick<RunApiClient, 'listRuns' | 'reportLinks'>;
  readonly workflows: readonly RunWorkflow[];
  readonly out: string;
  readonly limit?: number;
  readonly since?: Date;
  /** Where the rows came from, as the page says: the API's URL. */
  readonly source: string;
  /** Downloads one file through its presigned link. */
  readonly download: (file: ReportLinks['files'][number]) => Promise<Uint8Array>;
  /** Creates the folder and writes the file in it, refusing a name that is not a plain file name. */
  readonly writeFile: (folder: string, name: string, data: Uint8Array) => Promise<string>;
  /** A line on stderr per run downloaded. */
  readonly progress: (line: string) => void;
  readonly now: () => Date;
}

export interface ApiRunsIndex {
  readonly html: string;
  readonly json: string;
  readonly document: RunsIndexDocument;
  /** Some workflow listed more runs than `limit`. */
  readonly truncated: boolean;
}

export async function writeApiRunsIndex(options: ApiRunsIndexOptions): Promise<ApiRunsIndex> {
  const entries: RunsIndexEntry[] = [];
  let truncated = false;
  for (const workflow of options.workflows) {
    const listed = await options.client.listRuns({
      workflow,
      ...(options.limit === undefined ? {} : { limit: options.limit }),
      ...(options.since === undefined ? {} : { since: options.since }),
    });
    truncated ||= listed.truncated;
    for (const run of listed.runs) entries.push(await entryOfRun(run, options));
  }
  const document = runsIndexDocument(entries, {
    generatedAt: options.now().toISOString(),
    source: options.source,
  });
  const encoder = new TextEncoder();
  const json = await options.writeFile(
    options.out,
    RUNS_INDEX_JSON,
    encoder.encode(`${JSON.stringify(document, null, 2)}\n`),
  );
  const html = await options.writeFile(
    options.out,
    RUNS_INDEX_HTML,
    encoder.encode(renderRunsIndexHtml(document)),
  );
  return { html, json, document, truncated };
}

async function entryOfRun(run: RunListItem, options: ApiRunsIndexOptions): Promise<RunsIndexEntry> {
  // The run id becomes a folder under --out: the API's contract allows only execution names.
  const problem = describeInvalidRunId(run.runId);
  if (problem !== undefined) {
    throw new RunApiError(`The run API listed a run id that cannot name a folder: ${problem}`, 200);
  }
  if (!isTerminalStatus(run.status)) {
    return {
      runId: run.runId,
      workflow: run.workflow,
      date: run.startDate,
      outcome: RunsIndexOutcomes.running,
      outcomeText: `${run.status} since ${run.startDate}`,
      links: {},
    };
  }
  let links: ReportLinks;
  try {
    links = await options.client.reportLinks(run.runId, run.workflow);
  } catch (error) {
    // 409 ReportNotAvailable: the run ended without a report (run-report.ts); anything else fails the index.
    if (!(error instanceof RunApiError && error.code === ApiErrorCodes.reportNotAvailable)) throw error;
    return {
      runId: run.runId,
      workflow: run.workflow,
      date: run.startDate,
      outcome: RunsIndexOutcomes.failed,
      outcomeText: `${run.status}, ${runsIndexOutcomeLabel(RunsIndexOutcomes.failed)}: \`runs status ${run.runId}\` says why`,
      links: {},
    };
  }
  const folder = join(options.out, run.runId);
  const saved = new Map<string, Uint8Array>();
  for (const file of links.files) {
    const data = await options.download(file);
    await options.writeFile(folder, file.name, data);
    saved.set(file.name, data);
  }
  options.progress(`${run.runId}: ${links.files.map(({ name }) => name).join(', ')}`);
  const present = (name: string): string | undefined =>
    saved.has(name) ? `${run.runId}/${name}` : undefined;
  const documentName = REPORT_DOCUMENTS.find((name) => saved.has(name));
  const html = present('report.html');
  const markdown = present('report.md') ?? present('summary.md');
  const pageLinks = {
    ...(html === undefined ? {} : { html }),
    ...(markdown === undefined ? {} : { markdown }),
    ...(documentName === undefined ? {} : { json: `${run.runId}/${documentName}` }),
  };
  const context = { runId: run.runId, date: run.startDate, links: pageLinks };
  const bytes = documentName === undefined ? undefined : saved.get(documentName);
  if (documentName === undefined || bytes === undefined) {
    return {
      ...context,
      workflow: run.workflow,
      outcome: RunsIndexOutcomes.unreadable,
      outcomeText: runsIndexOutcomeLabel(RunsIndexOutcomes.unreadable),
      note: `no ${REPORT_DOCUMENTS.join(' or ')} among the report files (got ${[...saved.keys()].join(', ') || 'none'})`,
    };
  }
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    return {
      ...context,
      workflow: run.workflow,
      outcome: RunsIndexOutcomes.unreadable,
      outcomeText: runsIndexOutcomeLabel(RunsIndexOutcomes.unreadable),
      note: `${run.runId}/${documentName}: ${describeError(error)}`,
    };
  }
  return indexEntryOfDocument(document, { ...context, source: `${run.runId}/${documentName}` });
}
