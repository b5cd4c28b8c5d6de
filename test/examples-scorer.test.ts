import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from '@jest/globals';

const SCORER = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'scorers', 'rouge-l.js');

/** Runs the scorer as `quality.rule.scorer.command` runs it: `node <script>`, the answers on stdin. */
function score(stdin: string): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, [SCORER], {
    input: stdin,
    encoding: 'utf8',
  });
  return { status, stdout, stderr };
}

describe('examples/scorers/rouge-l.js', () => {
  it('prints the ROUGE-L F-measure of two texts: the longest common word subsequence over both lengths', () => {
    // Act: "a c d" is a subsequence of 4 words: precision 3/3, recall 3/4.
    const result = score(JSON.stringify({ reference: 'a b c d', candidate: 'a c d' }));

    // Assert
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ score: (2 * 1 * 0.75) / 1.75 });
  });

  it('reads token lists and { tokens } answers, and rewards the reference’s order', () => {
    // Act
    const inOrder = score(
      JSON.stringify({ reference: { tokens: ['a', 'b', 'c'] }, candidate: ['a', 'b', 'c'] }),
    );
    const reversed = score(
      JSON.stringify({ reference: { tokens: ['a', 'b', 'c'] }, candidate: ['c', 'b', 'a'] }),
    );

    // Assert
    expect(JSON.parse(inOrder.stdout)).toEqual({ score: 1 });
    expect(JSON.parse(reversed.stdout)).toEqual({ score: 1 / 3 });
  });

  it('scores two empty answers 1 and an empty candidate 0', () => {
    // Act
    const empty = score(JSON.stringify({ reference: '', candidate: [] }));
    const missing = score(JSON.stringify({ reference: 'a b', candidate: '' }));

    // Assert
    expect([JSON.parse(empty.stdout), JSON.parse(missing.stdout)]).toEqual([{ score: 1 }, { score: 0 }]);
  });

  it('fails when stdin is not { reference, candidate }, with exit code 2 and the expected form', () => {
    // Act
    const result = score(JSON.stringify({ reference: 'a' }));

    // Assert
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('stdin: expected JSON { "reference": …, "candidate": … }\n');
  });

  it('fails when an answer is neither a text nor tokens, naming it', () => {
    // Act
    const result = score(JSON.stringify({ reference: 'a', candidate: { text: 'a' } }));

    // Assert
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('candidate: expected a text, a list of tokens or { "tokens": [...] }');
  });
});
