/**
 * A prompt set end to end, in-process as in local-run.test.ts: the CLI seeds the example prompt
 * set, "Validate and plan" buckets it, the load worker draws its prompts, built by the TGI template,
 * and streams them from the local generative model server; the report lists the buckets.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Report } from '../../core/report/report.js';
import { EXAMPLE_GENERATIVE_MODEL_URI, EXAMPLE_PROMPTS_URI } from '../../local/cli/example-objects.js';
import { synthesizedWorkflows } from '../support/synthesized-workflows.js';
import { cli, type CliContext } from './support/local-cli.js';

let context: CliContext;

beforeAll(async () => {
  context = { dir: await mkdtemp(join(tmpdir(), 'e2e-prompts-')), workflows: synthesizedWorkflows() };
}, 120_000);

afterAll(async () => {
  await rm(context.dir, { recursive: true, force: true });
});

/** examples/local-prompts.json, shorter, with an SLA this shared machine always meets. */
const PROMPTS_INPUT = {
  model: {
    artifactUri: EXAMPLE_GENERATIVE_MODEL_URI,
    framework: 'onnx',
    image: 'local',
    inputShape: { token_ids: [1], state: [1, 128] },
  },
  prompts: {
    uri: EXAMPLE_PROMPTS_URI,
    generation: { maxNewTokens: 8, temperature: 0 },
    buckets: [{ name: 'short', maxChars: 100 }, { name: 'long' }],
  },
  candidates: [
    { id: 'batch4', instanceType: 'ml.c5.large', environment: { MODEL_SERVER_MAX_BATCH_SIZE: '4' } },
  ],
  loadPlan: {
    steps: [2],
    warmupSeconds: 0.5,
    stepDurationSeconds: 2,
    stopAtPlateau: false,
    kneeProbes: 0,
    repeats: 1,
    response: { mode: 'stream', format: 'tgi' },
  },
  sla: { ttftP95Ms: 30_000, maxErrorRate: 0.5 },
  maxConcurrentCandidates: 1,
};

describe('local mode end to end: a prompt set', () => {
  it('streams the bucketed example prompts and reports each bucket', async () => {
    // Act
    const { outcome, stderr } = await cli(context, 'e2e-prompts', PROMPTS_INPUT);

    // Assert
    expect(stderr()).toBe('');
    expect(outcome.exitCode).toBe(0);
    const report = JSON.parse(await readFile(outcome.reportFiles?.json ?? '', 'utf8')) as Report;
    expect(report.payloads?.map((payload) => [payload.bucket?.name, payload.weight])).toEqual([
      ['short', 8],
      ['long', 4],
    ]);
    const [step] = report.candidates[0]?.steps ?? [];
    expect(step?.errorRate).toBe(0);
    expect((step?.payloads ?? []).reduce((sum, payload) => sum + payload.requests, 0)).toBe(step?.requests);
    // The TGI template asks for details: the output tokens are the server's own count.
    expect([step?.stream?.outputTokenSource, step?.stream?.outputTokensPerRequest]).toEqual(['server', 8]);
  }, 90_000);
});
