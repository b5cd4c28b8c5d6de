import { describe, expect, it } from '@jest/globals';
import { bucketIndexOf, promptChars } from '../../../../core/load-test/prompts/prompt-buckets.js';

const BUCKETS = [{ name: 'short', maxChars: 10 }, { name: 'medium', maxChars: 20 }, { name: 'long' }];

describe('prompt buckets', () => {
  it('counts characters as code points, not UTF-16 units', () => {
    // Act
    const chars = promptChars({ text: 'a🙂é' });

    // Assert
    expect(chars).toBe(3);
  });

  it("counts a chat prompt's message contents together, not their roles", () => {
    // Act
    const chars = promptChars({
      messages: [
        { role: 'system', content: 'brief' },
        { role: 'user', content: 'why' },
      ],
    });

    // Assert
    expect(chars).toBe(8);
  });

  it.each([
    [1, 0],
    [10, 0],
    [11, 1],
    [20, 1],
    [21, 2],
    [100_000, 2],
  ])('puts a prompt of %i characters in bucket %i (bounds included)', (chars, bucket) => {
    // Act
    const index = bucketIndexOf(chars, BUCKETS);

    // Assert
    expect(index).toBe(bucket);
  });
});
