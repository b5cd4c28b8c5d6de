import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeError } from '../../core/contracts/index.js';
import {
  indexEntryOfDocument,
  renderRunsIndexHtml,
  RUNS_INDEX_HTML,
  RUNS_INDEX_JSON,
  type RunsIndexDocument,
  type RunsIndexEntry,
  type RunsIndexLinks,
  RunsIndexOutcomes,
  runsIndexDocument,
  runsIndexOutcomeLabel,
  unreadableEntry,
} from '../../core/report/index.js';
import { isProcessAlive, RUN_LOCK_FILE } from './run-lock.js';

/**
 * The runs folder's index (`runs/index.html`, `runs/index.json`), rewritten after every local run
 * and by `npm run -s runs -- index` after it downloads reports. Each row comes from the files in
 * the run's folder, never from a list kept beside them, so a folder deleted or copied in by hand is
 * right on the next write.
 */

/** Where a run folder's report document and its rendered files are, per layout. */
const LAYOUTS = [
  // An optimization run, local or downloaded by `runs report`.
  { document: 'report.json', markdown: 'report.md', html: 'report.html' },
  // A local async run (the bucket's layout: runs/<id>/async/…).
  { document: 'async/summary.json', markdown: 'async/summary.md', html: 'async/report.html' },
  // An async run downloaded by `runs report` (its files side by side).
  { document: 'summary.json', markdown: 'summary.md', html: 'report.html' },
] as const;

/** Every run folder directly under `runsDir`, as index rows (unsorted). */
export function readRunsIndexEntries(
  runsDir: string,
  options: { readonly isAlive?: (pid: number) => boolean } = {},
): RunsIndexEntry[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entryOfFolder(runsDir, entry.name, options.isAlive ?? isProcessAlive));
}

function entryOfFolder(runsDir: string, runId: string, isAlive: (pid: number) => boolean): RunsIndexEntry {
  const folder = join(runsDir, runId);
  for (const layout of LAYOUTS) {
    const documentPath = join(folder, layout.document);
    if (!existsSync(documentPath)) continue;
    const present = (file: string): string | undefined =>
      existsSync(join(folder, file)) ? `${runId}/${file}` : undefined;
    const links: RunsIndexLinks = {
      ...optional('html', present(layout.html)),
      ...optional('markdown', present(layout.markdown)),
      json: `${runId}/${layout.document}`,
    };
    const date = statSync(documentPath).mtime.toISOString();
    let document: unknown;
    try {
      document = JSON.parse(readFileSync(documentPath, 'utf8'));
    } catch (error) {
      return unreadableEntry({ runId, date, links }, `${runId}/${layout.document}: ${describeError(error)}`);
    }
    return indexEntryOfDocument(document, { runId, date, links, source: `${runId}/${layout.document}` });
  }
  const running = lockOwnerAlive(join(folder, RUN_LOCK_FILE), isAlive);
  return {
    runId,
    workflow: 'optimization',
    date: statSync(folder).mtime.toISOString(),
    outcome: running ? RunsIndexOutcomes.running : RunsIndexOutcomes.failed,
    outcomeText: running
      ? runsIndexOutcomeLabel(RunsIndexOutcomes.running)
      : 'the run wrote no report: it failed, was interrupted or refused before its report (its terminal output says why)',
    links: {},
  };
}

function optional<Key extends string>(key: Key, value: string | undefined): Partial<Record<Key, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<Key, string>);
}

/** A run holds `.lock` with its pid while it runs (local/cli/run-lock.ts). */
function lockOwnerAlive(path: string, isAlive: (pid: number) => boolean): boolean {
  if (!existsSync(path)) return false;
  const pid = Number(readFileSync(path, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 && isAlive(pid);
}

/**
 * Writes index.html and index.json into `runsDir` from what its folders hold (plus `extra` rows,
 * e.g. runs the run API listed without a report), each through a temporary file and a rename, so
 * two runs that end at once never leave a half-written page.
 */
export function writeRunsIndex(
  runsDir: string,
  options: {
    readonly now?: () => Date;
    readonly source?: string;
    /** Rows to use instead of reading the folders (the run API's). */
    readonly entries?: readonly RunsIndexEntry[];
    readonly isAlive?: (pid: number) => boolean;
  } = {},
): { readonly html: string; readonly json: string; readonly document: RunsIndexDocument } {
  const entries =
    options.entries ??
    readRunsIndexEntries(runsDir, options.isAlive === undefined ? {} : { isAlive: options.isAlive });
  const document = runsIndexDocument(entries, {
    generatedAt: (options.now ?? (() => new Date()))().toISOString(),
    source: options.source ?? runsDir,
  });
  const html = join(runsDir, RUNS_INDEX_HTML);
  const json = join(runsDir, RUNS_INDEX_JSON);
  writeAtomically(json, `${JSON.stringify(document, null, 2)}\n`);
  writeAtomically(html, renderRunsIndexHtml(document));
  return { html, json, document };
}

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}
