import { describe, expect, it } from '@jest/globals';
import { sessionOptionsOf } from '../../../local/model-server/session-options.js';

describe('sessionOptionsOf', () => {
  it('lets idle intra-op threads sleep unless spinning is asked for', () => {
    // Act
    const sleeping = sessionOptionsOf({ intraOpThreads: 2, spinWait: false });
    const spinning = sessionOptionsOf({ intraOpThreads: 2, spinWait: true });

    // Assert
    expect(sleeping).toEqual({
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'disabled',
      intraOpNumThreads: 2,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    });
    expect(spinning.extra).toEqual({ session: { intra_op: { allow_spinning: '1' } } });
  });
});
