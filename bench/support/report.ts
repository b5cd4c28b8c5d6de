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

export function formatTable(rows: readonly BenchRow[]): string {
  const header = ['benchmark', 'goal', 'measured', 'pass'];
  const cells = rows.map((row) => [row.name, row.goal, row.measured, row.pass ? 'yes' : 'NO']);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((cell) => cell[column]?.length ?? 0)),
  );
  const line = (values: readonly string[]): string =>
    `| ${values.map((value, column) => value.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n');
}
