import type { RowStatus } from './load-guard.js';

/** One benchmark's outcome, as printed in the table and recorded in bench/out/results.json. */
export interface BenchRow {
  readonly name: string;
  readonly goal: string;
  readonly measured: string;
  readonly pass: boolean;
  readonly details: Readonly<Record<string, unknown>>;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** A row as run.ts reports it: with the load around it and whether it was judged. */
export interface ReportedRow extends BenchRow {
  readonly status: RowStatus;
  /** The higher 1-minute load average of the two taken before and after the row. */
  readonly load: number;
}

const PASS_CELL: Readonly<Record<RowStatus, string>> = { ok: 'yes', FAIL: 'NO', busy: 'not judged' };

export function formatTable(rows: readonly ReportedRow[]): string {
  const header = ['benchmark', 'goal', 'measured', 'load', 'pass'];
  const cells = rows.map((row) => [
    row.name,
    row.goal,
    row.measured,
    row.load.toFixed(2),
    PASS_CELL[row.status],
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((cell) => cell[column]?.length ?? 0)),
  );
  const line = (values: readonly string[]): string =>
    `| ${values.map((value, column) => value.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n');
}
