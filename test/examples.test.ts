import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compilationSupportIssues } from '../core/catalog/neo-support.js';
import { artifactPrefixProblem, RUN_INPUT_PREFIXES } from '../core/contracts/object-uri.js';
import { runInputSchema } from '../core/contracts/run-input.js';
import { findInstance } from '../core/catalog/instances.js';
import { runAwsPlan } from '../local/cli/aws-plan.js';
import { takeLocalCalibration } from '../local/cli/calibration.js';
import { asyncRunInputSchema } from '../core/contracts/async-run-input.js';
import { plannedDurationSeconds, repeatsOf, stepPeriodMs } from '../core/load-test/index.js';
import { withLocalDefaults } from '../local/cli/local-input.js';
import { seedExampleObjects } from '../local/cli/example-objects.js';
import { LOCAL_ARTIFACTS_BUCKET } from '../local/environment/workflow-environment.js';
import { validateAndPlan } from '../core/steps/optimization/validate-and-plan.js';
import { MemoryObjectStore, silentLogger } from './support/memory-object-store.js';

const EXAMPLES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples');
const awsExamples = readdirSync(EXAMPLES_DIR).filter(
  (file) => file.endsWith('.json') && !file.startsWith('local'),
);
const optimizationExamples = awsExamples.filter((file) => !file.startsWith('async-'));
const compilingExamples = readdirSync(EXAMPLES_DIR).filter(
  (file) => file.endsWith('.json') && !file.includes('async'),
);
const asyncExamples = awsExamples.filter((file) => file.startsWith('async-'));

/** The region an example is planned in when it is not us-east-1 (as docs/local-runs.md says). */
const EXAMPLE_REGIONS: Readonly<Record<string, string>> = {
  // SageMaker Neo compiles ml_inf2 in us-east-2 only.
  'gpu-vs-inferentia.json': 'us-east-2',
};
/** An example's JSON document, as written. */
function readExample(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as Record<string, unknown>;
}

/** Every `s3://` string of a document, wherever it sits. */
function s3UrisIn(value: unknown): string[] {
  if (typeof value === 'string') return value.startsWith('s3://') ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(s3UrisIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(s3UrisIn);
  return [];
}

describe('examples/', () => {
  it('has async examples', () => {
    expect(asyncExamples.length).toBeGreaterThan(0);
  });

  it.each(asyncExamples)('%s is a valid async run input', (file) => {
    // Prepare
    const document: unknown = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8'));

    // Act
    const result = asyncRunInputSchema.safeParse(document);

    // Assert
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it.each(optimizationExamples)('%s is a valid optimization run input', (file) => {
    // Prepare
    const document: unknown = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8'));

    // Act
    const result = runInputSchema.safeParse(document);

    // Assert
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it.each(compilingExamples)('%s compiles only what SageMaker Neo compiles for its targets', (file) => {
    // Prepare
    // As the CLI reads a local example: its local calibration taken out first.
    const input = runInputSchema.parse(
      takeLocalCalibration(JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8'))).input,
    );
    const model = input.model;

    // Act
    const issues =
      model === undefined
        ? []
        : compilationSupportIssues({
            framework: model.framework,
            ...(model.frameworkVersion === undefined ? {} : { frameworkVersion: model.frameworkVersion }),
            ...(model.inputDataType === undefined ? {} : { inputDataType: model.inputDataType }),
            targets: input.compilation.targets,
          });

    // Assert
    expect(issues).toEqual([]);
  });

  it.each(awsExamples)('%s names objects only under the prefixes its workflow’s roles read', (file) => {
    // Prepare
    const document: unknown = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8'));
    const prefixes = file.startsWith('async-') ? RUN_INPUT_PREFIXES.async : RUN_INPUT_PREFIXES.optimization;

    // Act
    const outside = s3UrisIn(document).filter(
      (uri) => artifactPrefixProblem(uri, 'your-artifacts-bucket', prefixes) !== undefined,
    );

    // Assert
    expect(outside).toEqual([]);
  });

  it.each(optimizationExamples)('%s plans offline as on AWS (npm run plan:aws)', async (file) => {
    // Prepare
    const err: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (text: string) => err.push(text) } };
    const region = EXAMPLE_REGIONS[file] ?? 'us-east-1';

    // Act
    const outcome = await runAwsPlan(['--input', join(EXAMPLES_DIR, file), '--region', region], io);

    // Assert
    expect({ exitCode: outcome.exitCode, stderr: err.join('') }).toEqual({ exitCode: 0, stderr: '' });
  });

  it('has examples on current hardware: an NVIDIA L4/L40S GPU, 8 GPUs with tensor parallelism, Intel and Graviton CPUs', () => {
    // Prepare
    const instanceTypes = optimizationExamples.map((file) => {
      const input = runInputSchema.parse(JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')));
      return input.candidates.flatMap((candidate) =>
        'instanceType' in candidate ? [candidate.instanceType] : [],
      );
    });

    // Act
    const families = new Set(instanceTypes.flat().map((type) => type.split('.')[1]));
    const tensorParallel = instanceTypes.some((types) =>
      types.some((type) => (findInstance(type)?.acceleratorCount ?? 0) >= 8),
    );
    const intelAndGraviton = instanceTypes.some(
      (types) =>
        types.some((type) => type.startsWith('ml.c7i.')) && types.some((type) => type.startsWith('ml.c7g.')),
    );

    // Assert
    expect([families.has('g6'), families.has('g6e'), tensorParallel, intelAndGraviton]).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it('has a local example of the shortlist, planned on CPU types of several families', async () => {
    // Prepare
    const document = JSON.parse(readFileSync(join(EXAMPLES_DIR, 'local-shortlist.json'), 'utf8')) as unknown;
    const input = withLocalDefaults(takeLocalCalibration(document).input);
    const store = new MemoryObjectStore();
    await seedExampleObjects(store, input);

    // Act
    const plan = await validateAndPlan(
      { runId: 'shortlist-example', input },
      { store, artifactsBucket: LOCAL_ARTIFACTS_BUCKET, allowFileUris: true, logger: silentLogger },
    );

    // Assert
    expect([plan.shortlist?.request, plan.candidates.map((c) => c.instanceType)]).toEqual([
      { max: 3, kinds: ['cpu'] },
      ['ml.c6g.large', 'ml.m6g.large', 'ml.c5.large'],
    ]);
  });

  it('has a BERT example that compiles its int64 token ids as int64', () => {
    // Prepare
    const document: unknown = JSON.parse(readFileSync(join(EXAMPLES_DIR, 'bert-int64-gpu.json'), 'utf8'));

    // Act
    const input = runInputSchema.parse(document);

    // Assert
    expect([input.model?.inputDataType, input.compilation.targets]).toEqual(['int64', ['ml_g4dn', 'ml_c5']]);
  });
});

describe('examples/local.json and examples/local-full.json', () => {
  it("schedules at most 30 s of warm-ups and windows for npm start's example when every step meets the SLA", () => {
    // Prepare: as the local CLI runs it (calibration taken out, local repeats added)
    const input = runInputSchema.parse(
      withLocalDefaults(takeLocalCalibration(readExample('local.json')).input),
    );
    const plan = input.loadPlan;

    // Act: every candidate's steps, then its repeats (no knee probe: no step breached the SLA)
    const perCandidate = plannedDurationSeconds(plan) + ((repeatsOf(plan) - 1) * stepPeriodMs(plan)) / 1000;
    const seconds = input.candidates.length * perCandidate;

    // Assert: with its fixed costs (start-up, calibration, three model servers), within 45 s quiet
    expect([repeatsOf(plan), plan.interleaveRepeats]).toEqual([3, true]);
    expect(seconds).toBeLessThanOrEqual(30);
  });

  it("keeps the fuller example as npm start's, with 1 s warm-ups and 5 s windows", () => {
    // Prepare
    const short = readExample('local.json');
    const full = readExample('local-full.json');
    const withoutWindows = (document: Record<string, unknown>): unknown => {
      const { name: _name, loadPlan, ...rest } = document;
      const {
        warmupSeconds: _warmup,
        stepDurationSeconds: _window,
        ...plan
      } = loadPlan as Record<string, unknown>;
      return { ...rest, loadPlan: plan };
    };

    // Act
    const windows = [short, full].map((document) => {
      const plan = document.loadPlan as Record<string, unknown>;
      return [plan.warmupSeconds, plan.stepDurationSeconds];
    });

    // Assert
    expect(windows).toEqual([
      [0.5, 1.5],
      [1, 5],
    ]);
    expect(withoutWindows(full)).toEqual(withoutWindows(short));
  });
});
