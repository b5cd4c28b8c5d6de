import type { CandidateVerdict } from './report.js';

/**
 * A table of the report as plain text: both renderers build the same tables (render-markdown.ts)
 * and each lays them out for its format.
 */

/** `code` cells hold user-supplied configuration, shown verbatim; `number` cells align right. */
export type ColumnKind = 'text' | 'code' | 'number';

export interface TextColumn {
  readonly header: string;
  readonly kind: ColumnKind;
}

/** `sustainable`: the step the candidate's figures come from; `missed`: a step that broke the SLA. */
export type RowMark = CandidateVerdict | 'sustainable' | 'met' | 'missed';

export interface TextRow {
  readonly cells: readonly string[];
  readonly mark: RowMark;
}

export interface TextTable {
  readonly columns: readonly TextColumn[];
  readonly rows: readonly TextRow[];
}
