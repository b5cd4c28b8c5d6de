import { describe, expect, it } from '@jest/globals';
import { wrkErrors } from '../../bench/support/wrk.js';

/** wrk 4.1's report, as it prints it after a run. */
const report = (extra: string): string =>
  [
    'Running 8s test @ http://127.0.0.1:40001/invocations',
    '  1 threads and 32 connections',
    '  Thread Stats   Avg      Stdev     Max   +/- Stdev',
    '    Latency   512.00us  101.00us   4.10ms   90.00%',
    '    Req/Sec    60.12k     2.01k   64.00k    71.00%',
    '  478560 requests in 8.00s, 36.06MB read',
    extra,
    'Requests/sec:  59820.00',
    'Transfer/sec:      4.51MB',
  ].join('\n');

describe('wrkErrors', () => {
  it('counts nothing in a report without failures', () => {
    expect(wrkErrors(report(''))).toBe(0);
  });

  it('adds the non-2xx responses and every kind of socket error', () => {
    // Arrange
    const text = report(
      '  Socket errors: connect 1, read 2, write 3, timeout 4\n  Non-2xx or 3xx responses: 10',
    );

    // Act
    const errors = wrkErrors(text);

    // Assert
    expect(errors).toBe(20);
  });
});
