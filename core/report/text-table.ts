/**
 * A plain-text table for terminals: columns padded to their widest cell, a dashed rule under the
 * headers, each line indented by two spaces and trimmed at the end. The local CLIs, the runs CLI
 * and the run comparison print with it.
 */
export function textTable(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const render = (cells: readonly string[]): string =>
    `  ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')}`.trimEnd();
  return [render(headers), render(widths.map((width) => '-'.repeat(width))), ...rows.map(render)];
}
