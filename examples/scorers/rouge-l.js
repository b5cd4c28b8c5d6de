#!/usr/bin/env node
/**
 * A scorer for the output-quality guard's generative rule (`quality.rule.scorer.command`), e.g.
 *   "scorer": { "command": ["node", "examples/scorers/rouge-l.js"], "minMeanScore": 0.8 }
 *
 * Reads `{ "reference": …, "candidate": … }` as JSON on stdin, each answer a text, a list of tokens or
 * `{ "tokens": [...] }`, and prints `{ "score": s }`: the ROUGE-L F-measure of the two answers' words
 * (Lin, 2004, "ROUGE: A Package for Automatic Evaluation of Summaries",
 * https://aclanthology.org/W04-1013/): the longest common subsequence of the two word lists, its
 * precision over the candidate's words and recall over the reference's, F their harmonic mean.
 * Unlike the guard's own token F1, which counts shared words in any order, it rewards the order the
 * reference says them in. Two empty answers score 1.
 *
 * Node only, no package: exit code 2 and a sentence on stderr when the input is not as above.
 */
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

/** An answer's words: a text split on white space, or the tokens as given. */
function wordsOf(answer, name) {
  if (typeof answer === 'string')
    return answer
      .trim()
      .split(/\s+/)
      .filter((word) => word.length > 0);
  const tokens = Array.isArray(answer) ? answer : answer?.tokens;
  if (
    Array.isArray(tokens) &&
    tokens.every((token) => typeof token === 'string' || typeof token === 'number')
  ) {
    return tokens.map(String);
  }
  throw new Error(
    `${name}: expected a text, a list of tokens or { "tokens": [...] }, got ${JSON.stringify(answer)}`,
  );
}

/** The length of the longest common subsequence, one row of the table at a time. */
function longestCommonSubsequence(left, right) {
  let previous = new Array(right.length + 1).fill(0);
  for (const word of left) {
    const current = [0];
    right.forEach((other, index) => {
      current.push(word === other ? previous[index] + 1 : Math.max(previous[index + 1], current[index]));
    });
    previous = current;
  }
  return previous[right.length];
}

export function rougeL(reference, candidate) {
  if (reference.length === 0 && candidate.length === 0) return 1;
  const common = longestCommonSubsequence(reference, candidate);
  if (common === 0) return 0;
  const precision = common / candidate.length;
  const recall = common / reference.length;
  return (2 * precision * recall) / (precision + recall);
}

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  let input;
  try {
    input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new Error('stdin: expected JSON { "reference": …, "candidate": … }');
  }
  if (typeof input !== 'object' || input === null || !('reference' in input) || !('candidate' in input)) {
    throw new Error('stdin: expected JSON { "reference": …, "candidate": … }');
  }
  const score = rougeL(wordsOf(input.reference, 'reference'), wordsOf(input.candidate, 'candidate'));
  process.stdout.write(`${JSON.stringify({ score })}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  });
}
