import { ratioText } from './advice.js';
import { objectiveFigure, objectiveFigureLabel } from './objective-figure.js';
import type { CandidateReport, SweepCell, SweepFactor, SweepFactorKind, SweepGrid } from './report.js';
import type { LatencySla } from '../contracts/index.js';
import { verdictLabel } from './verdict-labels.js';

/**
 * A sweep's factor grid: the settings that vary across a run's candidates (instance type, count,
 * compilation, each environment variable that differs) and each candidate's objective figure at
 * its levels. Computed once into report.json's `sweep`; report.html draws it as a heatmap and
 * report.md as a table. Pure: the candidates in, the grid out.
 */

/** The level an environment variable takes on a candidate that does not set it. */
export const UNSET = '(unset)';
const NOT_COMPILED = 'not compiled';

/**
 * A grid is drawn when the candidates fill more than this share of its cells; sparser (a GPU type
 * against an Inferentia type, each compiled for itself), the summary table is clearer.
 */
export const MIN_GRID_FILL = 0.5;

function deploymentLevel(candidate: CandidateReport): string {
  if (candidate.serverless !== undefined) {
    return `serverless ${candidate.serverless.memorySizeMb} MB, ${candidate.serverless.maxConcurrency} concurrent`;
  }
  return candidate.instanceType ?? `${candidate.kind} endpoint`;
}

interface FactorReader {
  readonly name: string;
  readonly kind: SweepFactorKind;
  readonly read: (candidate: CandidateReport) => string;
}

/** Every setting a candidate can differ by, in the grid's tie-break order (environment by name). */
function factorReaders(candidates: readonly CandidateReport[]): FactorReader[] {
  const variables = [...new Set(candidates.flatMap((c) => Object.keys(c.environment)))].sort();
  return [
    { name: 'instance type', kind: 'instance-type', read: deploymentLevel },
    { name: 'instance count', kind: 'instance-count', read: (c) => String(c.instanceCount) },
    {
      name: 'compiled',
      kind: 'compiled',
      read: (c) => (c.compiled ? (c.compiledFor ?? 'compiled') : NOT_COMPILED),
    },
    ...variables.map((name): FactorReader => ({
      name,
      kind: 'environment',
      read: (c) => c.environment[name] ?? UNSET,
    })),
  ];
}

const NUMBER = /^-?\d+(\.\d+)?$/;

/** Numbers ascending when every set level is one (a worker or batch count), else as first seen. */
function orderLevels(seen: readonly string[]): string[] {
  const unique = [...new Set(seen)];
  const set = unique.filter((level) => level !== UNSET && level !== NOT_COMPILED);
  if (set.length === 0 || !set.every((level) => NUMBER.test(level))) return unique;
  const first = unique.filter((level) => level === UNSET || level === NOT_COMPILED);
  return [...first, ...set.sort((a, b) => Number(a) - Number(b))];
}

/** The factors that vary across the candidates, most levels first (ties in `factorReaders` order). */
export function sweepFactors(candidates: readonly CandidateReport[]): SweepFactor[] {
  return factorReaders(candidates)
    .map(({ name, kind, read }) => ({ name, kind, levels: orderLevels(candidates.map(read)) }))
    .filter((factor) => factor.levels.length > 1)
    .map((factor, order) => ({ factor, order }))
    .sort((a, b) => b.factor.levels.length - a.factor.levels.length || a.order - b.order)
    .map(({ factor }) => factor);
}

/**
 * How far a candidate that missed the SLA was from it: over its measured steps, the closest one's
 * latency ÷ the SLA's bound (the larger of p95 ÷ p95 bound and p99 ÷ p99 bound). Undefined when no
 * step has a latency or the SLA has no p95/p99 bound, or when the latency was within the bounds
 * (the step missed on its error rate or a streamed bound instead).
 */
export function slaMissRatio(candidate: Pick<CandidateReport, 'steps'>, sla: LatencySla): number | undefined {
  const ratios = candidate.steps.flatMap((step) => {
    const latency = step.latencyMs;
    if (latency === null) return [];
    const over = [
      ...(sla.p95LatencyMs === undefined ? [] : [latency.p95 / sla.p95LatencyMs]),
      ...(sla.p99LatencyMs === undefined ? [] : [latency.p99 / sla.p99LatencyMs]),
    ];
    return over.length === 0 ? [] : [Math.max(...over)];
  });
  if (ratios.length === 0) return undefined;
  const closest = Math.min(...ratios);
  return closest > 1 ? closest : undefined;
}

/**
 * `missed SLA 3.10×`, or `near miss 1.03×` within the run's noise (the candidate's `nearMiss`): the
 * word and the figure, so a near miss reads apart from a far one.
 */
function missedText(ratio: number | undefined, near: boolean): string {
  const word = near ? 'near miss' : verdictLabel('missed-sla');
  return ratio === undefined ? word : `${word} ${ratioText(ratio)}`;
}

function cellOf(
  objective: string,
  candidate: CandidateReport,
  factors: readonly FactorReader[],
  sla: LatencySla | undefined,
): SweepCell {
  const figure = objectiveFigure(objective, candidate);
  const ranked = candidate.verdict === 'recommended' || candidate.verdict === 'runner-up';
  const missed = candidate.verdict === 'missed-sla';
  const ratio = missed && sla !== undefined ? slaMissRatio(candidate, sla) : undefined;
  return {
    candidateId: candidate.id,
    levels: Object.fromEntries(factors.map((factor) => [factor.name, factor.read(candidate)])),
    verdict: candidate.verdict,
    ...(figure.value === undefined ? {} : { value: figure.value }),
    ...(ratio === undefined ? {} : { slaRatio: Math.round(ratio * 100) / 100 }),
    text: ranked
      ? figure.text
      : missed
        ? missedText(ratio, candidate.nearMiss !== undefined)
        : verdictLabel(candidate.verdict),
  };
}

/**
 * The grid of a sweep, or undefined when the candidates do not make one: fewer than two factors
 * vary, two candidates share every level (the grid could show only one of them), or they fill half
 * of the grid's cells or less (a mixed bag of settings reads better as the summary table).
 */
export function sweepGrid(
  objective: string,
  candidates: readonly CandidateReport[],
  sla?: LatencySla,
): SweepGrid | undefined {
  const factors = sweepFactors(candidates);
  const [x, y, ...rest] = factors;
  if (x === undefined || y === undefined) return undefined;
  const readers = factorReaders(candidates).filter((reader) => factors.some((f) => f.name === reader.name));
  const cells = candidates.map((candidate) => cellOf(objective, candidate, readers, sla));
  const coordinates = cells.map((cell) => JSON.stringify(factors.map((f) => cell.levels[f.name])));
  if (new Set(coordinates).size < cells.length) return undefined;
  const panelsRun = new Set(cells.map((cell) => JSON.stringify(rest.map((f) => cell.levels[f.name])))).size;
  if (cells.length <= MIN_GRID_FILL * x.levels.length * y.levels.length * panelsRun) return undefined;
  const recommended = candidates.find((candidate) => candidate.verdict === 'recommended');
  return {
    objective,
    figure: objectiveFigureLabel(objective),
    factors,
    x: x.name,
    y: y.name,
    panels: rest.map((factor) => factor.name),
    cells,
    ...(recommended === undefined ? {} : { recommendedCandidateId: recommended.id }),
  };
}

/** `MODEL_SERVER_MAX_BATCH_SIZE=8, compiled=ml_c5`: a panel's title; empty without panel factors. */
export function panelTitle(grid: SweepGrid, cell: SweepCell): string {
  return grid.panels.map((name) => `${name}=${cell.levels[name] ?? UNSET}`).join(', ');
}

/** The panels in level order, each with its cells; one untitled panel when no other factor varies. */
export function sweepPanels(grid: SweepGrid): { title: string; cells: SweepCell[] }[] {
  const rank = (cell: SweepCell): number[] =>
    grid.panels.map((name) => {
      const factor = grid.factors.find((f) => f.name === name);
      return factor?.levels.indexOf(cell.levels[name] ?? '') ?? -1;
    });
  const sorted = [...grid.cells].sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    const differs = ra.findIndex((value, index) => value !== rb[index]);
    return differs === -1 ? 0 : (ra[differs] ?? 0) - (rb[differs] ?? 0);
  });
  const panels = new Map<string, SweepCell[]>();
  for (const cell of sorted) {
    const title = panelTitle(grid, cell);
    panels.set(title, [...(panels.get(title) ?? []), cell]);
  }
  return [...panels].map(([title, cells]) => ({ title, cells }));
}

/** The cell at a column and row of a panel, if a candidate ran there. */
export function cellAt(
  cells: readonly SweepCell[],
  grid: SweepGrid,
  x: string,
  y: string,
): SweepCell | undefined {
  return cells.find((cell) => cell.levels[grid.x] === x && cell.levels[grid.y] === y);
}

export function levelsOf(grid: SweepGrid, name: string): readonly string[] {
  return grid.factors.find((factor) => factor.name === name)?.levels ?? [];
}
