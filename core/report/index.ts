/**
 * What other rooms import from core/report/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export { localQuotaMessage } from './advice.js';
export type { PlannedAsyncRunSummary } from './async-plan-summary.js';
export { formatAsyncPlan } from './async-plan-summary.js';
export { ASYNC_CHART_TITLES } from './async-report-charts.js';
export type { AsyncReport, AsyncReportInput } from './async-report.js';
export { buildAsyncReport } from './async-report.js';
export { buildReport } from './build-report.js';
export {
  DEFAULT_NOISE_TOLERANCE_PERCENT,
  InvalidReportError,
  TOLERANCE_EXPECTED,
  compareRuns,
  exitCodeOfComparison,
  parseReportForComparison,
  parseTolerancePercent,
} from './compare-runs.js';
export { compiledComparisonText } from './compiled-comparison.js';
export { withLocalFiles } from './local-files.js';
export { highNoiseWarning } from './noise.js';
export { formatPlan } from './plan-summary.js';
export { plannedQualityText, qualityCellText } from './quality-text.js';
export { RAMP_CHART_TITLE } from './ramp-chart.js';
export { readInstanceSpread } from './read-instance-spread.js';
export type { RegistryRun } from './registry-baseline.js';
export { compareWithBaseline, recordLastApproved, summaryComparisonOf } from './registry-baseline.js';
export { renderAsyncHtmlReport } from './render-async-html.js';
export { baselineDetailLines } from './render-baseline.js';
export { renderComparisonMarkdown, renderComparisonText } from './render-comparison.js';
export { renderHtmlReport } from './render-html.js';
export { busyMachineNote, renderMarkdownReport, streamAtSustainable } from './render-markdown.js';
export { rampSummaryLine } from './render-ramp.js';
export { serveTargetSummaryLine } from './render-serve-target.js';
export type { CandidateReport, Report, ReportMachineLoad } from './report.js';
export { noisePercent } from './rerun-interval.js';
export type { RunsIndexDocument, RunsIndexEntry, RunsIndexLinks } from './runs-index.js';
export {
  RUNS_INDEX_HTML,
  RUNS_INDEX_JSON,
  RunsIndexOutcomes,
  indexEntryOfDocument,
  renderRunsIndexHtml,
  runsIndexDocument,
  runsIndexOutcomeLabel,
  unreadableEntry,
} from './runs-index.js';
export { slaBoundsText } from './sla-text.js';
export { readStoredReport, writeStoredReport } from './stored-report.js';
export { RECOMMENDED_MARK, heatmapTitle } from './sweep-chart.js';
export { textTable } from './text-table.js';
