import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { bucketOfInput, OfflineObjectStore, runAwsPlan } from '../../../local/cli/aws-plan.js';
import { cliSandbox } from './support/cli-sandbox.js';

const sandbox = cliSandbox('aws-plan-');
const { capture, inputFile } = sandbox;

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EXAMPLE = join(REPO_ROOT, 'examples', 'huggingface.json');

/** A 70B fp16 Llama served by LMI on one candidate, as a user would write it. */
function seventyB(instanceType: string, environment: Record<string, string>) {
  return {
    model: {
      framework: 'djl-lmi',
      hub: { modelId: 'meta-llama/Llama-3.1-70B-Instruct' },
      size: { parameters: 70e9, dtype: 'fp16', attention: { layers: 80, kvHeads: 8, headDim: 128 } },
      environment: { OPTION_DTYPE: 'fp16', OPTION_MAX_ROLLING_BATCH_SIZE: '8', OPTION_MAX_MODEL_LEN: '4096' },
    },
    payload: { uri: 's3://my-bucket/models/llama/prompt.json' },
    candidates: [{ instanceType, environment }],
    pricing: { usdPerHour: { [instanceType]: 40 } },
    loadPlan: { model: 'closed', steps: [1], warmupSeconds: 30, stepDurationSeconds: 60 },
    sla: { p95LatencyMs: 10000 },
  };
}

/**
 * Every package the module at `entry` reaches through static and dynamic imports of the
 * repository's own modules (the bare specifiers: npm packages and node: builtins).
 */
function packagesReachedFrom(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    // Statements at a line's start (not the code a report renders as text); type-only imports are erased.
    const statements = [
      ...text.matchAll(/^(?:import|export)(?!\s+type\b)[^;]*?from\s+'([^']+)'/gm),
      ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
    ];
    for (const match of statements) {
      const specifier = match[1] ?? '';
      if (!specifier.startsWith('.')) {
        packages.add(specifier);
        continue;
      }
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      if (existsSync(target)) pending.push(target);
    }
  }
  return packages;
}

describe('npm run plan:aws', () => {
  it('plans an AWS example offline and names the checks that need AWS', async () => {
    // Prepare
    const { io, stdout, stderr } = capture();
    const store = new OfflineObjectStore();

    // Act
    const outcome = await runAwsPlan(['--input', EXAMPLE, '--run-id', 'priced'], { ...io, store });

    // Assert
    expect([outcome.exitCode, stderr()]).toEqual([0, '']);
    expect(store.calls).toEqual([]);
    expect(stdout()).toContain('Plan of run priced (DistilBERT sentiment');
    expect(stdout()).toContain('Estimated cost on AWS: $');
    expect(stdout()).toContain(
      'Planned offline for us-east-1, artifacts bucket your-artifacts-bucket (from the input); not checked (they need AWS):',
    );
    expect(stdout()).toMatch(/skipped: the objects the input names .*S3 HeadObject/);
    expect(stdout()).toMatch(/skipped: the account's instance quotas/);
    expect(stdout()).toMatch(/skipped: live prices of the run's region/);
  });

  it('reaches no AWS SDK client: nothing it imports can call AWS', () => {
    // Act
    const packages = packagesReachedFrom(join(REPO_ROOT, 'local', 'aws-plan-cli.ts'));

    // Assert
    expect(packages.has('zod')).toBe(true);
    expect([...packages].filter((name) => /^@aws-sdk\/|^@smithy\/|^aws-cdk-lib/.test(name))).toEqual([]);
  });

  it('fails when a 70B fp16 model is planned on ml.g5.xlarge, naming the memory needed and available', async () => {
    // Prepare
    const path = await inputFile(seventyB('ml.g5.xlarge', {}));
    const { io, stdout, stderr } = capture();

    // Act
    const outcome = await runAwsPlan(['--input', path], io);

    // Assert
    expect([outcome.exitCode, stdout()]).toEqual([2, '']);
    expect(stderr()).toContain(
      '  - candidates[0].instanceType: got "ml.g5.xlarge", expected an instance whose memory holds the model: it needs 140.4 GiB ' +
        '(70000000000 parameters × 2 bytes (fp16) + a KV cache of 8 × 4096 tokens over 80 layers), and ml.g5.xlarge has 24.0 GiB (1 GPU of 24 GiB)',
    );
  });

  it('plans a 70B fp16 model on ml.p4d.24xlarge with tensor parallel degree 8', async () => {
    // Prepare
    const path = await inputFile(seventyB('ml.p4d.24xlarge', { OPTION_TENSOR_PARALLEL_DEGREE: '8' }));
    const { io, stderr } = capture();

    // Act
    const outcome = await runAwsPlan(['--input', path, '--json'], io);

    // Assert
    expect([outcome.exitCode, stderr()]).toEqual([0, '']);
    expect(outcome.plan?.candidates.map((candidate) => candidate.instanceType)).toEqual(['ml.p4d.24xlarge']);
    expect(outcome.plan?.warnings ?? []).not.toContainEqual(expect.stringContaining('memory'));
  });

  it('fails when the input is an async-inference run input, naming the command that plans it', async () => {
    // Prepare
    const { io, stdout, stderr } = capture();

    // Act
    const outcome = await runAwsPlan(['--input', join(REPO_ROOT, 'examples', 'async-batch.json')], io);

    // Assert
    expect([outcome.exitCode, stdout()]).toEqual([2, '']);
    expect(stderr()).toMatch(
      /is an async-inference run input: .*npm run -s runs -- plan --input .*async-batch\.json --workflow async\n$/,
    );
  });

  it('fails when --input is missing, with the usage', async () => {
    // Prepare
    const { io, stderr } = capture();

    // Act
    const outcome = await runAwsPlan([], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toMatch(/^Missing --input FILE: .*\n\nUsage: npm run plan:aws/);
  });

  it('fails when a check depends on the default region, and says --region plans for another', async () => {
    // Prepare: Neo compiles ml_inf2 in us-east-2 only; the example is planned for us-east-1 by default.
    const { io, stderr } = capture();
    const example = join(REPO_ROOT, 'examples', 'gpu-vs-inferentia.json');

    // Act
    const outcome = await runAwsPlan(['--input', example], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toMatch(/compilation\.targets\[1\]: got "ml_inf2" in us-east-1/);
    expect(stderr()).toContain(
      '(planned for us-east-1, the default: to plan for the region the run would serve in, pass --region REGION)',
    );
  });

  it('fails on a type no source prices offline without suggesting another region, which would not price it', async () => {
    // Prepare: ml.g6e.2xlarge has no recorded price; only the live read on AWS, or the input, prices it.
    const { io, stderr } = capture();
    const input = {
      ...seventyB('ml.g6e.48xlarge', { OPTION_TENSOR_PARALLEL_DEGREE: '8' }),
      pricing: { usdPerHour: {} },
    };

    // Act
    const outcome = await runAwsPlan(['--input', await inputFile(input)], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toMatch(
      /expected a price for ml\.g6e\.48xlarge in us-east-1: a plan made offline reads no live price/,
    );
    expect(stderr()).not.toContain('pass --region');
  });

  it('plans the Inferentia2 example in the region Neo compiles ml_inf2 in', async () => {
    // Prepare
    const { io, stdout } = capture();
    const example = join(REPO_ROOT, 'examples', 'gpu-vs-inferentia.json');

    // Act
    const outcome = await runAwsPlan(['--input', example, '--region', 'us-east-2'], io);

    // Assert
    expect(outcome.exitCode).toBe(0);
    expect(stdout()).toContain('price table, us-east-1 figure (no us-east-2 row), 2025-10-01');
  });

  it('fails when --region is not a region', async () => {
    // Prepare
    const { io, stderr } = capture();

    // Act
    const outcome = await runAwsPlan(['--input', EXAMPLE, '--region', 'mars'], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toMatch(/^--region: got "mars", expected a region such as us-east-1/);
  });
});

describe('bucketOfInput', () => {
  it("takes the artifacts bucket from the model's URI, else the payload's", () => {
    // Act
    const buckets = [
      bucketOfInput({
        model: { artifactUri: 's3://models-here/models/m.onnx' },
        payload: { uri: 's3://x/y' },
      }),
      bucketOfInput({ model: { hub: {} }, payloads: [{ uri: 's3://payloads-here/models/p.json' }] }),
      bucketOfInput({ model: {} }),
    ];

    // Assert
    expect(buckets).toEqual(['models-here', 'payloads-here', undefined]);
  });
});
