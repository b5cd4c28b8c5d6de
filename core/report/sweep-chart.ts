import type { TopLevelSpec } from 'vega-lite';
import { levelsOf, panelTitle, sweepPanels } from './sweep-factors.js';
import type { SweepGrid } from './report.js';

/**
 * The sweep grid as a Vega-Lite heatmap: one cell per candidate at its two factors' levels, one
 * panel per combination of the other factors' levels. Cells with a figure are shaded by it (the
 * better, the greener); a cell without one (missed the SLA, failed, skipped) is shaded by what
 * happened and says it, so it never reads as a number. The recommended cell has a thick border
 * and a star. As in charts-specs.ts, user text (levels, ids) only enters as data values.
 */

const CELL_WIDTH = 160;
const CELL_HEIGHT = 40;

/** What a cell without a figure shows: the report page's colours for each verdict. */
const STATE_FILLS = {
  domain: [
    'runner-up',
    'recommended',
    'missed-sla',
    'quality-failed',
    'quality-unknown',
    'stalled',
    'model-errors',
    'measurement-problem',
    'failed',
    'skipped',
  ],
  range: [
    '#eceff1',
    '#eceff1',
    '#fff4e0',
    '#fdecea',
    '#fff4e0',
    '#fdecea',
    '#fdecea',
    '#fff4e0',
    '#fdecea',
    '#f5f5f5',
  ],
};

/** The text drawn in each cell, prefixed with a star for the recommendation. */
export const RECOMMENDED_MARK = '★';

export interface HeatmapDatum {
  readonly x: string;
  readonly y: string;
  readonly panel: string;
  readonly candidate: string;
  readonly verdict: string;
  readonly value: number | null;
  /** A missed-SLA cell: its latency ÷ the SLA's bound; null otherwise. */
  readonly slaRatio: number | null;
  readonly label: string;
  readonly recommended: boolean;
}

export function heatmapData(grid: SweepGrid): HeatmapDatum[] {
  return sweepPanels(grid).flatMap(({ cells }) =>
    cells.map((cell) => {
      const recommended = cell.candidateId === grid.recommendedCandidateId;
      return {
        x: cell.levels[grid.x] ?? '',
        y: cell.levels[grid.y] ?? '',
        panel: panelTitle(grid, cell),
        candidate: cell.candidateId,
        verdict: cell.verdict,
        value: cell.value ?? null,
        slaRatio: cell.slaRatio ?? null,
        label: recommended ? `${RECOMMENDED_MARK} ${cell.text}` : cell.text,
        recommended,
      };
    }),
  );
}

export function heatmapTitle(grid: SweepGrid): string {
  return `Sweep: ${grid.figure.label} by ${grid.x} and ${grid.y}`;
}

export function sweepHeatmapSpec(grid: SweepGrid, measuredLocally: boolean): TopLevelSpec {
  const data = heatmapData(grid);
  const encoding = {
    x: {
      field: 'x',
      type: 'ordinal',
      title: grid.x,
      sort: [...levelsOf(grid, grid.x)],
      axis: { labelAngle: 0, orient: 'top', labelLimit: CELL_WIDTH - 8 },
    },
    y: {
      field: 'y',
      type: 'ordinal',
      title: grid.y,
      sort: [...levelsOf(grid, grid.y)],
      axis: { labelLimit: 220 },
    },
  } as const;
  // Without a single figure the colour scale has no domain, and its legend would read "$NaN".
  const anyFigure = data.some((datum) => datum.value !== null);
  const figureLayers = anyFigure
    ? [
        {
          transform: [{ filter: 'isValid(datum.value)' }],
          mark: { type: 'rect' as const, stroke: 'white', strokeWidth: 2 },
          encoding: {
            color: {
              field: 'value',
              type: 'quantitative' as const,
              title: grid.figure.label,
              // Light to mid green, so black text stays readable; the better end is the greener.
              scale: { range: ['#f1f8e9', '#66bb6a'], reverse: grid.figure.better === 'lower', zero: false },
              legend: {
                orient: 'right' as const,
                titleLimit: 260,
                direction: 'vertical' as const,
                format: grid.figure.label.startsWith('USD') ? '$,.3~f' : ',.1~f',
              },
            },
          },
        },
      ]
    : [];
  const layers = {
    encoding,
    layer: [
      ...figureLayers,
      {
        transform: [{ filter: '!isValid(datum.value)' }],
        mark: { type: 'rect' as const, stroke: 'white', strokeWidth: 2 },
        encoding: {
          fill: { field: 'verdict', type: 'nominal' as const, scale: STATE_FILLS, legend: null },
        },
      },
      // A missed-SLA cell darkens with how far it missed: a near miss stays pale, 3× or more is deep.
      {
        transform: [{ filter: 'isValid(datum.slaRatio)' }],
        mark: { type: 'rect' as const, stroke: 'white', strokeWidth: 2, fill: '#ef6c00' },
        encoding: {
          opacity: {
            field: 'slaRatio',
            type: 'quantitative' as const,
            scale: { domain: [1, 3], range: [0.15, 0.6], clamp: true },
            legend: null,
          },
        },
      },
      {
        transform: [{ filter: 'datum.recommended' }],
        mark: { type: 'rect' as const, fillOpacity: 0, stroke: '#1b5e20', strokeWidth: 4 },
      },
      {
        mark: { type: 'text' as const, fontSize: 12, color: '#1d252c', limit: CELL_WIDTH - 6 },
        encoding: { text: { field: 'label', type: 'nominal' as const } },
      },
    ],
  };
  const title = {
    text: heatmapTitle(grid),
    subtitle: [
      `${grid.figure.better} is better; ${RECOMMENDED_MARK} and a thick border: the recommendation; shaded cells without a figure say why${measuredLocally ? ' (measured locally)' : ''}`,
    ],
  };
  const size = { width: { step: CELL_WIDTH }, height: { step: CELL_HEIGHT } };
  if (grid.panels.length === 0) {
    return {
      $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
      title,
      data: { values: data },
      ...size,
      ...layers,
    };
  }
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    data: { values: data },
    facet: {
      row: {
        field: 'panel',
        type: 'nominal',
        title: null,
        sort: sweepPanels(grid).map((panel) => panel.title),
        header: {
          labelAngle: 0,
          labelAlign: 'left',
          labelAnchor: 'start',
          labelOrient: 'top',
          labelFontWeight: 'bold',
          labelLimit: 600,
        },
      },
    },
    spec: { ...size, ...layers },
    resolve: { scale: { x: 'shared', y: 'shared', color: 'shared' } },
  };
}
