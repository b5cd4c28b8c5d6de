import { describe, expect, it } from '@jest/globals';
import { MAX_LOAD_PER_CORE, loadVerdict, rowStatus } from '../../bench/support/load-guard.js';
import { formatTable } from '../../bench/support/report.js';

describe('loadVerdict', () => {
  it('judges a row whose load stayed at or below the threshold per core', () => {
    // Act
    const verdict = loadVerdict({ before: 2.5, after: MAX_LOAD_PER_CORE * 2, cores: 2 }, true);

    // Assert
    expect(verdict).toEqual({ judged: true, load: 3, cores: 2 });
  });

  it('refuses to judge a row when the load after it is above the threshold', () => {
    // Act
    const verdict = loadVerdict({ before: 1, after: 3.4, cores: 2 }, true);

    // Assert
    expect(verdict).toEqual({
      judged: false,
      load: 3.4,
      cores: 2,
      reason: 'machine too busy (load 3.40 on 2 cores): not judged',
    });
  });

  it('refuses to judge a row when the load before it is above the threshold', () => {
    expect(loadVerdict({ before: 7.9, after: 1, cores: 2 }, true).judged).toBe(false);
  });

  it('scales the threshold with the cores', () => {
    expect(loadVerdict({ before: 5, after: 5, cores: 4 }, true).judged).toBe(true);
  });

  it('judges a row whose figures do not depend on the machine whatever the load', () => {
    expect(loadVerdict({ before: 9, after: 9, cores: 2 }, false)).toEqual({
      judged: true,
      load: 9,
      cores: 2,
    });
  });
});

describe('rowStatus', () => {
  const busy = loadVerdict({ before: 9, after: 9, cores: 2 }, true);
  const quiet = loadVerdict({ before: 0.5, after: 0.5, cores: 2 }, true);

  it('passes or fails a judged row on its figures', () => {
    expect([rowStatus(true, quiet), rowStatus(false, quiet)]).toEqual(['ok', 'FAIL']);
  });

  it('does not fail a row the machine was too busy to judge', () => {
    expect([rowStatus(true, busy), rowStatus(false, busy)]).toEqual(['busy', 'busy']);
  });
});

describe('formatTable', () => {
  it('shows each row’s load and a busy row as not judged', () => {
    // Arrange
    const row = { name: 'r', goal: 'g', measured: 'm', details: {} };

    // Act
    const table = formatTable([
      { ...row, pass: false, status: 'busy', load: 6.5 },
      { ...row, pass: true, status: 'ok', load: 1 },
    ]);

    // Assert
    expect(table.split('\n')).toEqual([
      '| benchmark | goal | measured | load | pass       |',
      '| --------- | ---- | -------- | ---- | ---------- |',
      '| r         | g    | m        | 6.50 | not judged |',
      '| r         | g    | m        | 1.00 | yes        |',
    ]);
  });
});
