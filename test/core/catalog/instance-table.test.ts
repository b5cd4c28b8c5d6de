import { ProductionVariantInstanceType, TargetDevice } from '@aws-sdk/client-sagemaker';
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInstanceTable } from '../../../core/catalog/build-instance-table.js';
import {
  familyOf,
  type InstanceFactsFile,
  NEO_TARGET_FAMILIES,
  NEO_TARGET_FAMILIES_NOT_PLANNED,
} from '../../../core/catalog/instance-facts.js';
import { INSTANCE_TABLE, INSTANCE_TABLE_SOURCE } from '../../../core/catalog/instance-table.js';
import { findInstance } from '../../../core/catalog/instances.js';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const FACTS = JSON.parse(
  readFileSync(join(REPO_ROOT, 'core', 'catalog', 'sources', 'instance-facts.json'), 'utf8'),
) as InstanceFactsFile;
const SDK_VERSION = (
  JSON.parse(
    readFileSync(join(REPO_ROOT, 'node_modules', '@aws-sdk', 'client-sagemaker', 'package.json'), 'utf8'),
  ) as { version: string }
).version;
const SDK_TYPES: readonly string[] = Object.values(ProductionVariantInstanceType);
const CATALOG_TYPES = INSTANCE_TABLE.map((row) => row.instanceType);

describe('generated instance table', () => {
  it('fails when the SageMaker SDK accepts a hosting instance type the catalog lacks (run npm run catalog)', () => {
    // Act
    const missing = SDK_TYPES.filter((type) => !CATALOG_TYPES.includes(type));

    // Assert
    expect(missing).toEqual([]);
  });

  it('fails when the catalog lists a type the SDK does not accept for hosting', () => {
    // Act
    const extra = CATALOG_TYPES.filter((type) => !SDK_TYPES.includes(type));

    // Assert
    expect(extra).toEqual([]);
  });

  it('fails when instance-table.ts is not what npm run catalog makes of the facts, the rules and the SDK', () => {
    // Act
    const expected = buildInstanceTable(SDK_TYPES, FACTS);

    // Assert
    expect(INSTANCE_TABLE).toEqual(expected);
    expect(INSTANCE_TABLE_SOURCE.sdk).toBe(
      `@aws-sdk/client-sagemaker@${SDK_VERSION}, ProductionVariantInstanceType`,
    );
  });

  it('fails when a fact names a source the facts file does not describe', () => {
    // Act
    const named = [
      ...Object.values(FACTS.hosts).map((fact) => fact.source),
      ...Object.values(FACTS.acceleratorDevices).map((fact) => fact.source),
    ];
    const undescribed = named.filter((source) => FACTS.sources[source] === undefined);

    // Assert
    expect(undescribed).toEqual([]);
    expect(
      Object.values(FACTS.sources).every((source) => /^https:\/\//.test(source.url) && source.readOn),
    ).toBe(true);
  });

  it('says unknown, never a guess, for a type no source read describes', () => {
    // Act
    const row = INSTANCE_TABLE.find((candidate) => candidate.instanceType === 'ml.p6e-gb200.36xlarge');
    const spec = findInstance('ml.p6e-gb200.36xlarge');

    // Assert
    expect(row).toMatchObject({ vcpus: 'unknown', memoryGiB: 'unknown', accelerator: 'unknown' });
    expect(spec?.vcpus).toBeUndefined();
    expect(spec?.acceleratorCount).toBeUndefined();
    expect(spec?.unknownFacts).toEqual(expect.arrayContaining(['vcpus', 'memoryGiB', 'acceleratorDevices']));
  });

  it('derives CUDA and the LLM containers from the GPU generation: none on a K80, CUDA 12 at most on a V100', () => {
    // Act
    const [k80, v100, a100] = ['ml.p2.xlarge', 'ml.p3.2xlarge', 'ml.p4d.24xlarge'].map(findInstance);

    // Assert
    expect([k80?.computeCapability, k80?.newestCudaMajor, k80?.llmContainers]).toEqual([3.7, 11, []]);
    expect([v100?.computeCapability, v100?.newestCudaMajor]).toEqual([7.0, 12]);
    expect([a100?.acceleratorCount, a100?.newestCudaMajor, a100?.llmContainers]).toEqual([
      8,
      13,
      ['djl-lmi', 'hf-tgi', 'vllm'],
    ]);
  });

  it('counts accelerator memory over every device of the instance, from the per-device size', () => {
    // Act
    const memory = [
      'ml.g5.xlarge',
      'ml.g5.48xlarge',
      'ml.p4de.24xlarge',
      'ml.c5.large',
      'ml.p4d.24xlarge',
      'ml.p5.48xlarge',
      'ml.p6e-gb200.36xlarge',
    ].map((type) => findInstance(type)?.acceleratorMemoryGiB);

    // Assert
    expect(memory).toEqual([24, 192, 640, 0, 320, 640, undefined]);
  });

  it('counts NeuronCores as chips × cores per chip', () => {
    // Act
    const cores = ['ml.inf1.24xlarge', 'ml.inf2.48xlarge', 'ml.trn1.32xlarge', 'ml.trn2.48xlarge'].map(
      (type) => findInstance(type)?.acceleratorCount,
    );

    // Assert: Trainium2 has 8 NeuronCore-v3 per chip, 16 chips on trn2.48xlarge.
    expect(cores).toEqual([64, 24, 32, 128]);
  });

  it('knows ml.g6e as NVIDIA L40S: GPUs per size and the GPU memory EC2 states, CUDA and LLM containers checked', () => {
    // Act
    const [xlarge, twelve, fortyEight] = ['ml.g6e.xlarge', 'ml.g6e.12xlarge', 'ml.g6e.48xlarge'].map(
      findInstance,
    );

    // Assert: EC2 gives 45,776 MiB per L40S (44.7031 GiB).
    expect([xlarge?.accelerator, xlarge?.computeCapability, xlarge?.unknownFacts]).toEqual([
      'nvidia-l40s',
      8.9,
      [],
    ]);
    expect([
      xlarge?.vcpus,
      xlarge?.memoryGiB,
      xlarge?.acceleratorCount,
      xlarge?.acceleratorMemoryGiB,
    ]).toEqual([4, 32, 1, 44.7031]);
    expect([twelve?.acceleratorCount, fortyEight?.acceleratorCount, fortyEight?.memoryGiB]).toEqual([
      4, 8, 1536,
    ]);
    expect(xlarge?.llmContainers).toEqual(['djl-lmi', 'hf-tgi', 'vllm']);
  });

  it('gives the p5 sizes their GPUs: one H100 on ml.p5.4xlarge, eight on ml.p5.48xlarge, H200 on p5e and p5en', () => {
    // Act
    const specs = ['ml.p5.4xlarge', 'ml.p5.48xlarge', 'ml.p5e.48xlarge', 'ml.p5en.48xlarge'].map(
      findInstance,
    );

    // Assert
    expect(
      specs.map((spec) => [spec?.accelerator, spec?.acceleratorCount, spec?.acceleratorMemoryGiB]),
    ).toEqual([
      ['nvidia-h100', 1, 80],
      ['nvidia-h100', 8, 640],
      ['nvidia-h200', 8, 1128],
      ['nvidia-h200', 8, 1128],
    ]);
    expect(specs.map((spec) => spec?.vcpus)).toEqual([16, 192, 192, 192]);
  });

  it('leaves the compute capability of a Blackwell GPU unknown rather than guess which CUDA images run on it', () => {
    // Act
    const b200 = findInstance('ml.p6-b200.48xlarge');

    // Assert
    expect([b200?.accelerator, b200?.acceleratorCount, b200?.computeCapability]).toEqual([
      'nvidia-b200',
      8,
      undefined,
    ]);
    expect(b200?.unknownFacts).toEqual(['computeCapability', 'newestCudaMajor', 'llmContainers']);
  });

  it('knows the current CPU families (Intel c7i/m7i/r7i, Graviton c8g/m8g/r8g/r7gd) without an accelerator', () => {
    // Act
    const specs = ['ml.c7i.xlarge', 'ml.m8g.large', 'ml.r7gd.medium'].map(findInstance);

    // Assert
    expect(specs.map((spec) => [spec?.vcpus, spec?.memoryGiB, spec?.acceleratorCount])).toEqual([
      [4, 8, 0],
      [2, 8, 0],
      [1, 8, 0],
    ]);
    expect(specs.every((spec) => spec?.unknownFacts.length === 0)).toBe(true);
  });

  it('knows ml.g6 as NVIDIA L4 (compute capability 8.9), so its CUDA and LLM containers are checked', () => {
    // Act
    const g6 = findInstance('ml.g6.2xlarge');

    // Assert
    expect([g6?.accelerator, g6?.computeCapability, g6?.unknownFacts]).toEqual(['nvidia-l4', 8.9, []]);
  });

  it('gives Neuron accelerator memory as chips × the chip memory the Neuron architecture pages state', () => {
    // Act
    const memory = ['ml.inf1.24xlarge', 'ml.inf2.48xlarge', 'ml.trn1.2xlarge', 'ml.trn1n.32xlarge'].map(
      (type) => findInstance(type)?.acceleratorMemoryGiB,
    );

    // Assert: 16 × 8 GiB (Inferentia), 12 × 32 GiB (Inferentia2), 1 and 16 × 32 GiB (Trainium).
    expect(memory).toEqual([128, 384, 32, 512]);
  });
});

describe('Neo target families', () => {
  it('fails when the SDK names a Neo target for a hosting family the catalog neither plans nor lists as not planned', () => {
    // Prepare
    const families = new Set(SDK_TYPES.map(familyOf));

    // Act
    const unaccounted = Object.values(TargetDevice)
      .filter((target) => target.startsWith('ml_') && families.has(target.slice('ml_'.length)))
      .map((target) => target.slice('ml_'.length))
      .filter(
        (family) =>
          !NEO_TARGET_FAMILIES.includes(family) && !NEO_TARGET_FAMILIES_NOT_PLANNED.includes(family),
      );

    // Assert
    expect(unaccounted).toEqual([]);
  });
});
