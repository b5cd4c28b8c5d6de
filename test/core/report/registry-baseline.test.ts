import { describe, expect, it } from '@jest/globals';
import {
  baselineIndexUri,
  compareWithBaseline,
  recordLastApproved,
  type RegistryRun,
} from '../../../core/report/registry-baseline.js';
import type { ObjectStore } from '../../../core/ports/index.js';
import { MemoryObjectStore, silentLogger } from '../../support/memory-object-store.js';
import { type ComparedFigures, comparedReport } from './support/comparison-reports.js';

const BUCKET = 'mso-artifacts';
const GROUP = 'fraud';
const INDEX = `s3://${BUCKET}/model-packages/${GROUP}/last-approved.json`;
const NOW = new Date('2026-11-24T15:00:00.000Z');
const STEADY: ComparedFigures = {
  id: 'c5',
  tps: 500,
  p95: 10,
  cost: 0.05,
  spread: { tps: [480, 500, 520], p95: [9, 10, 11], cost: [0.048, 0.052] },
};

function reportUri(version: number): string {
  return `s3://${BUCKET}/runs/approved-${GROUP}-v${version}/report.json`;
}

function registryRun(version: number, figures: ComparedFigures = STEADY): RegistryRun {
  return {
    artifactsBucket: BUCKET,
    modelPackage: {
      groupName: GROUP,
      version,
      arn: `arn:aws:sagemaker:us-east-1:123456789012:model-package/${GROUP}/${version}`,
    },
    report: comparedReport(`approved-${GROUP}-v${version}`, [figures], figures.id),
    reportUri: reportUri(version),
  };
}

function baselineEntry(version: number) {
  return {
    runId: `approved-${GROUP}-v${version}`,
    modelPackageVersion: version,
    modelPackageArn: `arn:aws:sagemaker:us-east-1:123456789012:model-package/${GROUP}/${version}`,
    reportUri: reportUri(version),
  };
}

/** A store holding the reports of `versions` (each STEADY) and an index naming `last` and `previous`. */
function storeWith(last?: number, previous?: number): MemoryObjectStore {
  const store = new MemoryObjectStore();
  for (const version of [last, previous]) {
    if (version === undefined) continue;
    store.seed(reportUri(version), JSON.stringify(registryRun(version).report));
  }
  if (last !== undefined) {
    store.seed(
      INDEX,
      JSON.stringify({
        schemaVersion: 1,
        groupName: GROUP,
        last: baselineEntry(last),
        ...(previous === undefined ? {} : { previous: baselineEntry(previous) }),
        updatedAt: '2026-11-20T00:00:00.000Z',
      }),
    );
  }
  return store;
}

function deps(store: ObjectStore) {
  return { store, logger: silentLogger, now: () => NOW };
}

function indexIn(store: MemoryObjectStore): unknown {
  const object = store.objects.get(INDEX);
  return object === undefined ? undefined : JSON.parse(new TextDecoder().decode(object.body));
}

describe('baselineIndexUri', () => {
  it('keeps one index per package group under model-packages/', () => {
    // Act
    const uri = baselineIndexUri(BUCKET, GROUP);

    // Assert
    expect(uri).toBe(INDEX);
  });
});

describe('compareWithBaseline', () => {
  it('says "no baseline" when the group has no index yet', async () => {
    // Act
    const found = await compareWithBaseline(registryRun(1), deps(new MemoryObjectStore()));

    // Assert
    expect(found).toEqual({
      verdict: 'no baseline',
      text: "No baseline: no earlier approved version of model package group fraud has a report, so version 1 is the group's first baseline.",
    });
  });

  it('calls the same figures "unchanged within noise" against the last approved version', async () => {
    // Act
    const found = await compareWithBaseline(registryRun(2), deps(storeWith(1)));

    // Assert
    expect(found.verdict).toBe('unchanged');
    expect(found.text).toBe(
      'Unchanged within noise versus version 1 (run approved-fraud-v1): c5 (recommended by approved-fraud-v1): within noise on TPS, p95 ms, $/1M.',
    );
    expect(found.baseline).toEqual(baselineEntry(1));
  });

  it('compares a retried run with the version before it, not with itself', async () => {
    // Prepare: the first attempt recorded v2 already.
    const slower: ComparedFigures = {
      ...STEADY,
      tps: 300,
      spread: { tps: [290, 300, 310], p95: [9, 10, 11], cost: [0.048, 0.052] },
    };

    // Act
    const found = await compareWithBaseline(registryRun(2, slower), deps(storeWith(2, 1)));

    // Assert
    expect([found.verdict, found.baseline?.runId]).toEqual(['regressed', 'approved-fraud-v1']);
  });

  it('says "no baseline" for a version older than the last one recorded', async () => {
    // Act
    const found = await compareWithBaseline(registryRun(3), deps(storeWith(5)));

    // Assert
    expect(found).toEqual({
      verdict: 'no baseline',
      text: "No baseline: version 5 (run approved-fraud-v5) is the group's last approved version, later than this version 3, and an older version is not compared with a newer one.",
    });
  });

  it('calls a baseline whose report is gone "not comparable", naming the report', async () => {
    // Prepare
    const store = storeWith(1);
    store.objects.delete(reportUri(1));

    // Act
    const found = await compareWithBaseline(registryRun(2), deps(store));

    // Assert
    expect(found).toEqual({
      verdict: 'not comparable',
      baseline: baselineEntry(1),
      text: `Not compared with version 1 (run approved-fraud-v1): its report could not be read (Error: No object at ${reportUri(1)}).`,
    });
  });

  it('calls an index this version cannot read "not comparable", naming the index', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(INDEX, '{"schemaVersion": 2}');

    // Act
    const found = await compareWithBaseline(registryRun(2), deps(store));

    // Assert
    expect(found).toEqual({
      verdict: 'not comparable',
      text:
        `Not compared: the index ${INDEX} is not one this version reads (schemaVersion: got 2, expected 1; ` +
        'groupName: got nothing, expected string; last: got nothing, expected object; updatedAt: got nothing, ' +
        'expected string); the run replaces it.',
    });
  });
});

describe('recordLastApproved', () => {
  it('records the first run of a group as its last approved one', async () => {
    // Prepare
    const store = new MemoryObjectStore();

    // Act
    const written = await recordLastApproved(registryRun(1), deps(store));

    // Assert
    expect(written).toBe(true);
    expect(indexIn(store)).toEqual({
      schemaVersion: 1,
      groupName: GROUP,
      last: baselineEntry(1),
      updatedAt: NOW.toISOString(),
    });
    expect(store.objects.get(INDEX)?.contentType).toBe('application/json');
  });

  it('keeps the run it replaces as the previous one', async () => {
    // Prepare
    const store = storeWith(1);

    // Act
    await recordLastApproved(registryRun(2), deps(store));

    // Assert
    expect(indexIn(store)).toEqual({
      schemaVersion: 1,
      groupName: GROUP,
      last: baselineEntry(2),
      previous: baselineEntry(1),
      updatedAt: NOW.toISOString(),
    });
  });

  it('writes nothing when a retried run finds itself recorded', async () => {
    // Prepare
    const store = storeWith(2, 1);
    const before = indexIn(store);

    // Act
    const written = await recordLastApproved(registryRun(2), deps(store));

    // Assert
    expect([written, indexIn(store)]).toEqual([false, before]);
  });

  it('refuses to replace a later version with an older one', async () => {
    // Prepare
    const store = storeWith(5);
    const before = indexIn(store);

    // Act
    const written = await recordLastApproved(registryRun(3), deps(store));

    // Assert
    expect([written, indexIn(store)]).toEqual([false, before]);
  });

  it('replaces an index this version cannot read, without a previous run', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(INDEX, '{"schemaVersion": 2}');

    // Act
    const written = await recordLastApproved(registryRun(2), deps(store));

    // Assert
    expect([written, indexIn(store)]).toEqual([
      true,
      { schemaVersion: 1, groupName: GROUP, last: baselineEntry(2), updatedAt: NOW.toISOString() },
    ]);
  });
});
