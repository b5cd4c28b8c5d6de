import { describe, expect, it } from '@jest/globals';
import { knownInstanceTypes } from '../../../core/catalog/instances.js';
import {
  PRICE_TABLE_SOURCES,
  RECORDED_PRICE_REGIONS,
  RECORDED_PRICES,
  recordedPriceOf,
} from '../../../core/catalog/price-table.js';

describe('recorded price table', () => {
  it('records only types SageMaker hosting accepts (the SDK enum the catalog is built from)', () => {
    // Prepare
    const known = new Set(knownInstanceTypes());

    // Act
    const unknown = RECORDED_PRICES.filter((row) => !known.has(row.instanceType)).map(
      (row) => row.instanceType,
    );

    // Assert
    expect(unknown).toEqual([]);
  });

  it('records each type at most once per region, at a positive price', () => {
    // Act
    const keys = RECORDED_PRICES.map((row) => `${row.region} ${row.instanceType}`);
    const unpriced = RECORDED_PRICES.filter((row) => !(row.usdPerHour > 0));

    // Assert
    expect(keys.length).toBe(new Set(keys).size);
    expect(unpriced).toEqual([]);
  });

  it('names for every source an address and a date', () => {
    // Act
    const sources = Object.values(PRICE_TABLE_SOURCES);

    // Assert
    for (const source of sources) {
      expect(source.url).toMatch(/^https:\/\//);
      expect(source.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('has rows for us-east-1 only: no public source read gives another region', () => {
    // Act
    const row = recordedPriceOf('ml.c5.xlarge', 'eu-west-1');

    // Assert
    expect(RECORDED_PRICE_REGIONS).toEqual(['us-east-1']);
    expect(row).toBeUndefined();
  });

  it('prices ml.p5.48xlarge from the FMBench file, and has no row for ml.g6e.2xlarge', () => {
    // Act
    const p5 = recordedPriceOf('ml.p5.48xlarge');
    const g6e = recordedPriceOf('ml.g6e.2xlarge');

    // Assert
    expect(p5).toEqual({
      instanceType: 'ml.p5.48xlarge',
      region: 'us-east-1',
      usdPerHour: 113.068,
      source: 'fmbench-pricing',
    });
    expect(g6e).toBeUndefined();
  });
});
