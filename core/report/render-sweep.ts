import type { Report, SweepCell, SweepGrid } from './report.js';
import { RECOMMENDED_MARK } from './sweep-chart.js';
import { cellAt, levelsOf, sweepPanels } from './sweep-factors.js';

/**
 * The sweep grid's section: report.md prints it as one table per panel, report.html draws the
 * heatmap (sweep-chart.ts). Both say the same thing in the same words.
 */

/** What a grid position nobody ran shows. */
const NOT_RUN = '—';

export function sweepIntro(grid: SweepGrid): string {
  const panels = grid.panels.length === 0 ? '' : `, one panel per ${grid.panels.join(' × ')}`;
  return (
    `${grid.figure.label} (${grid.figure.better} is better) by ${grid.x} (columns) and ${grid.y} (rows)${panels}; ` +
    `${RECOMMENDED_MARK} marks the recommendation; a cell without a figure says why (missed SLA, model errors, failed, skipped); a missed SLA gives how far: the closest step's p95 ÷ the SLA's (or p99's), e.g. 1.03×, and a near miss is one within the run's noise; ` +
    `${NOT_RUN}: no candidate ran with those settings.`
  );
}

/** One panel's rows: the y level, then each x level's cell text (starred when recommended). */
function panelRows(grid: SweepGrid, cells: readonly SweepCell[]): { y: string; cells: string[] }[] {
  return levelsOf(grid, grid.y).map((y) => ({
    y,
    cells: levelsOf(grid, grid.x).map((x) => {
      const cell = cellAt(cells, grid, x, y);
      if (cell === undefined) return NOT_RUN;
      return cell.candidateId === grid.recommendedCandidateId
        ? `${RECOMMENDED_MARK} ${cell.text}`
        : cell.text;
    }),
  }));
}

/** report.md's "Sweep grid", or nothing when the run is not a sweep. */
export function sweepMarkdown(report: Report, escapeMarkdown: (text: string) => string): string[] {
  const grid = report.sweep;
  if (grid === undefined) return [];
  const columns = levelsOf(grid, grid.x);
  const lines = ['## Sweep grid', '', escapeMarkdown(sweepIntro(grid)), ''];
  for (const panel of sweepPanels(grid)) {
    if (panel.title !== '') lines.push(`### ${escapeMarkdown(panel.title)}`, '');
    lines.push(
      `| ${escapeMarkdown(`${grid.y} ↓ / ${grid.x} →`)} | ${columns.map(escapeMarkdown).join(' | ')} |`,
      `| --- |${columns.map(() => ' ---: ').join('|')}|`,
      ...panelRows(grid, panel.cells).map(
        (row) =>
          `| ${escapeMarkdown(row.y)} | ${row.cells
            .map((text) =>
              text.startsWith(RECOMMENDED_MARK) ? `**${escapeMarkdown(text)}**` : escapeMarkdown(text),
            )
            .join(' | ')} |`,
      ),
      '',
    );
  }
  return lines;
}

/** report.html's "Sweep grid": the heatmap rendered by charts.ts, or nothing. */
export function sweepHtml(
  report: Report,
  svg: string | undefined,
  escapeHtml: (text: string) => string,
): string {
  if (report.sweep === undefined || svg === undefined) return '';
  return [
    '<h2>Sweep grid</h2>',
    `<p>${escapeHtml(sweepIntro(report.sweep))}</p>`,
    `<figure class="sweep">${svg}</figure>`,
  ].join('\n');
}
