import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { Report } from '../../../core/report/report.js';
import { COMPARE_USAGE, runCompareCli } from '../../../local/cli/compare.js';
import { type ComparedFigures, comparedReport } from '../../core/report/support/comparison-reports.js';
import { cliSandbox } from './support/cli-sandbox.js';

const sandbox = cliSandbox('compare-cli-');
const { capture } = sandbox;

const NEO: ComparedFigures = {
  id: 'c5-large-neo',
  tps: 500,
  p95: 10,
  cost: 0.05,
  spread: { tps: [480, 500, 520], p95: [9, 10, 11], cost: [0.048, 0.052] },
};
const SLOWER_NEO: ComparedFigures = {
  ...NEO,
  tps: 400,
  cost: 0.0625,
  spread: { tps: [390, 400, 410], p95: [9, 10, 11], cost: [0.061, 0.064] },
};

/** Writes a report as `npm start` does: runs/<run id>/report.json under the sandbox. */
async function saveRun(report: Report): Promise<string> {
  const folder = join(sandbox.dir(), 'runs', report.runId);
  await mkdir(folder, { recursive: true });
  const path = join(folder, 'report.json');
  await writeFile(path, JSON.stringify(report));
  return path;
}

async function compare(...argv: string[]) {
  const { io, stdout, stderr } = capture();
  const exitCode = await runCompareCli(argv, io);
  return { exitCode, stdout: stdout(), stderr: stderr() };
}

describe('npm run compare', () => {
  it('compares two runs by id and exits 6 when the recommended candidate regressed', async () => {
    // Prepare
    await saveRun(comparedReport('nightly-1', [NEO], 'c5-large-neo'));
    await saveRun(comparedReport('nightly-2', [SLOWER_NEO], 'c5-large-neo'));

    // Act
    const { exitCode, stdout } = await compare('nightly-1', 'nightly-2');

    // Assert
    expect(exitCode).toBe(6);
    expect(stdout.split('\n').slice(0, 3)).toEqual([
      'Comparing nightly-1 (2026-11-24T12:00:00.000Z) → nightly-2 (2026-11-24T12:00:00.000Z)',
      'Verdict: regressed: c5-large-neo (recommended by nightly-1): worse: TPS 500.0 → 400.0 (-20 %), ranges do not overlap; $/1M $0.0500 → $0.0625 (+25 %), ranges do not overlap',
      'Recommendation: c5-large-neo → c5-large-neo (unchanged)',
    ]);
  });

  it('reads report.json paths and prints the comparison as JSON with --json, exit 0 when unchanged', async () => {
    // Prepare
    const basePath = await saveRun(comparedReport('nightly-1', [NEO], 'c5-large-neo'));
    const nextPath = await saveRun(comparedReport('nightly-2', [{ ...NEO, tps: 510 }], 'c5-large-neo'));

    // Act
    const { exitCode, stdout } = await compare(basePath, nextPath, '--json');

    // Assert
    expect(exitCode).toBe(0);
    const comparison = JSON.parse(stdout) as { verdict: string; base: unknown; candidates: unknown[] };
    expect(comparison.verdict).toBe('unchanged');
    expect(comparison.base).toEqual({
      runId: 'nightly-1',
      generatedAt: '2026-11-24T12:00:00.000Z',
      outcome: 'recommended',
      recommended: 'c5-large-neo',
    });
    expect(comparison.candidates[0]).toMatchObject({
      id: 'c5-large-neo',
      figures: {
        tps: {
          base: { value: 500, range: { min: 480, max: 520 } },
          new: { value: 510, range: { min: 480, max: 520 } },
          change: 10,
          changePercent: 2,
          verdict: 'within noise',
          basis: 'ranges',
        },
      },
    });
  });

  it('prints a Markdown table with --markdown and applies --tolerance to figures without spread', async () => {
    // Prepare
    const single: ComparedFigures = { id: 'c5-large', tps: 500, p95: 10, cost: 0.05 };
    await saveRun(comparedReport('nightly-1', [single], 'c5-large'));
    await saveRun(comparedReport('nightly-2', [{ ...single, tps: 485 }], 'c5-large'));

    // Act
    const { exitCode, stdout } = await compare('nightly-1', 'nightly-2', '--markdown', '--tolerance', '2');

    // Assert
    expect(exitCode).toBe(6);
    expect(stdout.split('\n').filter((line) => line.startsWith('| c5-large | TPS'))).toEqual([
      '| c5-large | TPS | 500.0 | 485.0 | -15.0 (-3 %) | regressed (no spread measured: beyond ±2 %) |',
    ]);
  });

  it("reads a run's folder as its report.json", async () => {
    // Prepare
    await saveRun(comparedReport('nightly-1', [NEO], 'c5-large-neo'));
    await saveRun(comparedReport('nightly-2', [NEO], 'c5-large-neo'));

    // Act
    const { exitCode, stdout } = await compare('runs/nightly-1', join(sandbox.dir(), 'runs', 'nightly-2'));

    // Assert
    expect(exitCode).toBe(0);
    expect(stdout.split('\n')[0]).toBe(
      'Comparing nightly-1 (2026-11-24T12:00:00.000Z) → nightly-2 (2026-11-24T12:00:00.000Z)',
    );
  });

  it('refuses one run with the usage, exit 2', async () => {
    // Act
    const { exitCode, stderr } = await compare('nightly-1');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr).toBe(
      'got 1 argument(s): nightly-1, expected two: the base run and the new run (run ids or report.json paths)' +
        `\n\n${COMPARE_USAGE}\n`,
    );
  });

  it('refuses a run that has no report, saying where it looked', async () => {
    // Prepare
    await saveRun(comparedReport('nightly-1', [NEO], 'c5-large-neo'));

    // Act
    const { exitCode, stderr } = await compare('nightly-1', 'nightly-9');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr.split('\n')[0]).toBe(
      '"nightly-9": no report found (looked for runs/nightly-9/report.json and nightly-9), expected a run id ' +
        "under runs/ or the path of a report.json; download a deployed run's with `npm run -s runs -- report <run id>`",
    );
  });

  it('refuses a file that is not a report, naming it and the field', async () => {
    // Prepare
    await saveRun(comparedReport('nightly-1', [NEO], 'c5-large-neo'));
    await writeFile(join(sandbox.dir(), 'input.json'), JSON.stringify({ model: {} }));

    // Act
    const { exitCode, stderr } = await compare('nightly-1', 'input.json');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr).toBe(
      'input.json is not a report.json this version can compare: schemaVersion: got nothing, expected 1; ' +
        'runId: got nothing, expected string; generatedAt: got nothing, expected string; ' +
        'measuredLocally: got nothing, expected boolean; objective: got nothing, expected string; ' +
        'outcome: got nothing, expected string; candidates: got nothing, expected array; ' +
        'recommendation: got nothing, expected object. ' +
        'Expected the report.json a run wrote (runs/<run id>/report.json, or `runs report <run id>`)\n',
    );
  });

  it('refuses an unknown option with exit 2, naming it and the options it takes', async () => {
    // Act
    const { exitCode, stderr } = await compare('nightly-1', 'nightly-2', '--bogus');

    // Assert: it printed node's "TypeError: Unknown option '--bogus'. To specify a positional…".
    expect(exitCode).toBe(2);
    expect(stderr).toBe(
      `got the option --bogus, expected one of --runs, --json, --markdown, --tolerance, -h/--help\n\n${COMPARE_USAGE}\n`,
    );
  });

  it("refuses an option without its value, in node's words without the TypeError name", async () => {
    // Act
    const { exitCode, stderr } = await compare('nightly-1', 'nightly-2', '--runs');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr.split('\n')[0]).toBe("Option '--runs <value>' argument missing");
  });
});
