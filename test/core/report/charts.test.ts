import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { View } from 'vega';
import type { TopLevelSpec } from 'vega-lite';
import { toSvg } from '../../../core/report/charts.js';
import { withConsoleWarnings } from './support/console-warnings.js';

/** A one-layer point chart of `values`, titled `title`; `logScale` puts x on a log scale. */
function pointChart(title: string, values: { x: number; y: number }[], logScale = false): TopLevelSpec {
  return {
    title,
    data: { values },
    mark: 'point',
    encoding: {
      x: { field: 'x', type: 'quantitative', ...(logScale ? { scale: { type: 'log' } } : {}) },
      y: { field: 'y', type: 'quantitative' },
    },
  };
}

describe('toSvg', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('renders a spec once when it is asked for it again, by an equal copy', async () => {
    // Prepare
    const renders = jest.spyOn(View.prototype, 'toSVG');
    const spec = pointChart('Asked twice', [{ x: 1, y: 2 }]);

    // Act
    const first = await toSvg(spec);
    const second = await toSvg(structuredClone(spec));

    // Assert
    expect(second).toBe(first);
    expect(first).toContain('Asked twice');
    expect(renders).toHaveBeenCalledTimes(1);
  });

  it('renders a spec that differs in its data or title anew', async () => {
    // Prepare
    const renders = jest.spyOn(View.prototype, 'toSVG');
    const spec = pointChart('Before', [{ x: 1, y: 2 }]);

    // Act
    const before = await toSvg(spec);
    const otherData = await toSvg(pointChart('Before', [{ x: 1, y: 3 }]));
    const otherTitle = await toSvg(pointChart('After', [{ x: 1, y: 2 }]));

    // Assert
    expect(otherData).not.toBe(before);
    expect(otherTitle).toContain('After');
    expect(otherTitle).not.toContain('Before');
    expect(renders).toHaveBeenCalledTimes(3);
  });

  it('prints what Vega warned on every call for the spec, rendered then or before', async () => {
    // Prepare: a log scale whose domain includes zero, which Vega warns about.
    const spec = pointChart(
      'Log of zero',
      [
        { x: 0, y: 1 },
        { x: 10, y: 2 },
      ],
      true,
    );

    // Act
    const first = await withConsoleWarnings(() => toSvg(spec));
    const again = await withConsoleWarnings(() => toSvg(spec));

    // Assert
    expect(first.warnings).toEqual(['WARN Log scale domain includes zero: [0,10]']);
    expect(again.warnings).toEqual(first.warnings);
    expect(again.result).toBe(first.result);
  });

  it('renders again a spec 32 other specs were rendered after', async () => {
    // Prepare: the views' SVG output stubbed, as only how often it is asked matters here.
    const renders = jest.spyOn(View.prototype, 'toSVG').mockResolvedValue('<svg></svg>');
    const first = pointChart('Evicted', [{ x: 0, y: 0 }]);
    await toSvg(first);
    for (let index = 1; index <= 32; index += 1) await toSvg(pointChart('Other', [{ x: index, y: 0 }]));
    renders.mockClear();

    // Act
    await toSvg(first);

    // Assert
    expect(renders).toHaveBeenCalledTimes(1);
  });
});
