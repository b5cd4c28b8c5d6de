import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { RunsIndexDocument } from '../../../core/report/runs-index.js';
import { writeRunsIndex } from '../../../local/cli/runs-index.js';
import { sampleReport } from '../../../bench/fixtures/sample-report.js';

const NOW = () => new Date('2026-11-22T12:00:00.000Z');

let runsDir: string;

beforeEach(() => {
  runsDir = mkdtempSync(join(tmpdir(), 'runs-index-'));
});

afterEach(() => {
  rmSync(runsDir, { recursive: true, force: true });
});

/** Writes `files` (path inside the run's folder → text) into `<runs>/<runId>/`. */
function runFolder(runId: string, files: Readonly<Record<string, string>>): void {
  for (const [path, text] of Object.entries(files)) {
    const file = join(runsDir, runId, path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
  }
}

function asyncSummary(runId: string): string {
  return JSON.stringify({
    runId,
    outcome: 'completed',
    endpointName: `mso-${runId}`,
    inputs: 2,
    completed: 2,
    failed: 0,
    timedOut: 0,
    makespanMs: 1000,
    drainRatePerMinute: 120,
    totalMs: null,
    timeInSageMakerMs: null,
    summaryUri: `s3://b/runs/${runId}/async/summary.json`,
    summaryMarkdownUri: `s3://b/runs/${runId}/async/summary.md`,
    items: [],
  });
}

function readIndex(): RunsIndexDocument {
  return JSON.parse(readFileSync(join(runsDir, 'index.json'), 'utf8')) as RunsIndexDocument;
}

describe('writeRunsIndex', () => {
  it('lists every run folder from its own report document, with links relative to the runs folder', () => {
    // Prepare
    runFolder('opt-1', {
      'report.json': JSON.stringify(sampleReport()),
      'report.md': '#',
      'report.html': '<html>',
    });
    runFolder('async-1', { 'async/summary.json': asyncSummary('async-1'), 'async/summary.md': '#' });
    runFolder('failed-1', { 'model/model.onnx': 'x' });

    // Act
    const written = writeRunsIndex(runsDir, { now: NOW, source: 'runs', isAlive: () => false });

    // Assert
    const rows = readIndex().runs.map(({ runId, workflow, outcome, links }) => ({
      runId,
      workflow,
      outcome,
      links,
    }));
    expect(rows.sort((a, b) => a.runId.localeCompare(b.runId))).toEqual([
      {
        runId: 'async-1',
        workflow: 'async-inference',
        outcome: 'async-completed',
        links: { markdown: 'async-1/async/summary.md', json: 'async-1/async/summary.json' },
      },
      { runId: 'failed-1', workflow: 'optimization', outcome: 'failed', links: {} },
      {
        runId: 'opt-1',
        workflow: 'optimization',
        outcome: 'partial',
        links: { html: 'opt-1/report.html', markdown: 'opt-1/report.md', json: 'opt-1/report.json' },
      },
    ]);
    expect(readFileSync(written.html, 'utf8')).toContain('<a href="opt-1/report.html">report</a>');
  });

  it('drops a run whose folder was deleted by hand on the next write', () => {
    // Prepare
    runFolder('kept', { 'async/summary.json': asyncSummary('kept') });
    runFolder('deleted', { 'async/summary.json': asyncSummary('deleted') });
    writeRunsIndex(runsDir, { now: NOW });
    rmSync(join(runsDir, 'deleted'), { recursive: true });

    // Act
    writeRunsIndex(runsDir, { now: NOW });

    // Assert
    expect(readIndex().runs.map(({ runId }) => runId)).toEqual(['kept']);
  });

  it('calls a folder whose run holds its lock "running"', () => {
    // Prepare
    runFolder('live', { '.lock': '4242' });

    // Act
    writeRunsIndex(runsDir, { now: NOW, isAlive: (pid) => pid === 4242 });

    // Assert
    expect(readIndex().runs.map(({ outcome }) => outcome)).toEqual(['running']);
  });

  it('fails when a report document is not JSON, with an unreadable row and every other run listed', () => {
    // Prepare
    runFolder('broken', { 'report.json': '{ not json' });
    runFolder('fine', { 'async/summary.json': asyncSummary('fine') });

    // Act
    writeRunsIndex(runsDir, { now: NOW });

    // Assert
    const rows = readIndex().runs.map(({ runId, outcome, note }) => [runId, outcome, note?.split(':')[0]]);
    expect(rows.sort()).toEqual([
      ['broken', 'unreadable', 'broken/report.json'],
      ['fine', 'async-completed', undefined],
    ]);
  });
});
