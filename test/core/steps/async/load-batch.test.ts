import { beforeEach, describe, expect, it } from '@jest/globals';
import { loadBatch } from '../../../../core/steps/async/load-batch.js';
import type { BatchItem } from '../../../../core/contracts/async-state.js';
import { MemoryObjectStore } from '../../../support/memory-object-store.js';
import { CapturingLogger } from '../../async/support/fakes.js';

const RUN_ID = 'nightly-2026-05-23';
const RUN_PREFIX = `s3://mso-artifacts/runs/${RUN_ID}/`;
const MANIFEST_URI = `${RUN_PREFIX}async/inputs.json`;

let store: MemoryObjectStore;
let logger: CapturingLogger;

beforeEach(() => {
  store = new MemoryObjectStore();
  logger = new CapturingLogger();
});

function item(itemIndex: number): BatchItem {
  return { itemIndex, inputLocation: `s3://mso-artifacts/inputs/${String(itemIndex).padStart(4, '0')}.json` };
}

function seedManifest(count: number): void {
  store.seed(
    MANIFEST_URI,
    JSON.stringify({ runId: RUN_ID, items: Array.from({ length: count }, (_, i) => item(i)) }),
  );
}

describe('loadBatch', () => {
  it("returns the batch's slice of the manifest", async () => {
    // Arrange
    seedManifest(95);

    // Act
    const items = await loadBatch(
      { plan: { manifestUri: MANIFEST_URI }, batch: { batchIndex: 2, firstItemIndex: 80, itemCount: 15 } },
      { store, logger },
    );

    // Assert
    expect(items).toHaveLength(15);
    expect(items[0]).toEqual(item(80));
    expect(items[14]).toEqual(item(94));
  });

  it('fails when the manifest holds fewer items than the batch expects', async () => {
    // Arrange
    seedManifest(90);

    // Act
    const load = loadBatch(
      { plan: { manifestUri: MANIFEST_URI }, batch: { batchIndex: 2, firstItemIndex: 80, itemCount: 15 } },
      { store, logger },
    );

    // Assert
    await expect(load).rejects.toThrow('Batch 2: the manifest has 10 items from index 80, expected 15');
  });
});
