import type { ObjectStore } from '../ports/index.js';
import { renderHtmlReport } from './render-html.js';
import { renderMarkdownReport } from './render-markdown.js';
import type { Report } from './report.js';

/** The run's three report objects, as "Recommend" wrote them (RunSummary's `report`). */
export interface ReportLocations {
  readonly json: string;
  readonly markdown: string;
  readonly html: string;
}

/** report.json as "Recommend" (or a later phase) stored it. */
export async function readStoredReport(store: ObjectStore, uri: string): Promise<Report> {
  return JSON.parse(new TextDecoder().decode(await store.getBytes(uri))) as Report;
}

/**
 * The phases after "Recommend" (the proof, the ramp) rewrite the report whole: report.json, then
 * report.md and report.html rendered from it, so the three never disagree.
 */
export async function writeStoredReport(
  store: ObjectStore,
  locations: ReportLocations,
  report: Report,
): Promise<void> {
  const encoder = new TextEncoder();
  await store.putBytes(locations.json, encoder.encode(JSON.stringify(report, null, 2)), 'application/json');
  await store.putBytes(locations.markdown, encoder.encode(renderMarkdownReport(report)), 'text/markdown');
  await store.putBytes(locations.html, encoder.encode(await renderHtmlReport(report)), 'text/html');
}
