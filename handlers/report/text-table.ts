/**
 * A plain-text table for a terminal: each column as wide as its widest cell, a rule under the
 * headers, two spaces of indent. The local CLIs and the runs CLI print their tables with it.
 */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const render = (cells: readonly string[]): string =>
    `  ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')}`.trimEnd();
  return [render(headers), render(widths.map((width) => '-'.repeat(width))), ...rows.map(render)];
}
