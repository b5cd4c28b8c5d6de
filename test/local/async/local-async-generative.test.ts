/**
 * A generative model's async run end to end, locally: the example generative
 * model behind a local async endpoint, TGI's generate requests as inputs, and each result's tokens
 * counted from the answer the model server wrote, as "Record batch results" does on AWS.
 */
import { readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ItemResult } from '../../../core/contracts/async-state.js';
import { runAsyncCli } from '../../../local/cli/async/main.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../../support/synthesized-workflows.js';
import { isAlive } from '../platform/support/model-artifacts.js';

let workflows: SynthesizedWorkflows;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'local-async-generative-'));
  workflows = synthesizedWorkflows();
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('npm run start:async -- --input examples/local-async-generative.json', () => {
  it("counts each prompt's generated tokens from TGI's answers and sums them in the summary", async () => {
    // Prepare
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: (text: string) => err.push(text) },
      cwd: dir,
      workflows,
    };
    const example = fileURLToPath(new URL('../../../examples/local-async-generative.json', import.meta.url));

    // Act
    const outcome = await runAsyncCli(
      ['--input', example, '--run-id', 'gen', '--store', 'store', '--runs', 'runs'],
      io,
    );

    // Assert: 12 prompts asking 8, 10, …, 30 new tokens; greedy decoding of a model that never
    // ends early, so each answer has exactly what it asked.
    expect(err.join('')).toBe('');
    expect(outcome.exitCode).toBe(0);
    expect(outcome.summary).toMatchObject({ inputs: 12, completed: 12 });
    const asked = Array.from({ length: 12 }, (_, index) => 8 + ((index * 2) % 24));
    const summaryJson = JSON.parse(await readFile(outcome.summaryFiles?.json ?? '', 'utf8')) as {
      items: ItemResult[];
    };
    expect(summaryJson.items.map((item) => item.outputTokens)).toEqual(asked);
    expect(outcome.summary?.generative).toMatchObject({
      format: 'tgi',
      counted: 12,
      uncounted: 0,
      outputTokens: asked.reduce((sum, count) => sum + count, 0),
      notes: [],
    });
    expect(outcome.summary?.generative?.outputTokensPerSecond).toBeGreaterThan(0);
    expect(out.join('')).toMatch(
      /Generated tokens \(tgi answers, the container's own counts\): 228 out, \d+ in, over 12 result\(s\)/,
    );
    for (const pid of outcome.serverPids) expect(isAlive(pid)).toBe(false);
  }, 90_000);
});
