import { describe, expect, it } from '@jest/globals';
import type { HostingPriceList } from '../../../core/catalog/market.js';
import { PRICE_TABLE_SOURCE } from '../../../core/contracts/price-source.js';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import { priceCacheUri, readPriceBook } from '../../../core/planning/price-source.js';
import { MemoryObjectStore, silentLogger } from '../../support/memory-object-store.js';

const BUCKET = 'mso-artifacts';
const PLANNED_AT = new Date('2026-11-28T09:30:00Z');

/** A price list that answers `prices` (or throws what `failures` holds first) and counts its reads. */
class RecordingPriceList implements HostingPriceList {
  readonly reads: string[] = [];
  constructor(
    private readonly prices: Readonly<Record<string, number>>,
    private readonly failures: Error[] = [],
  ) {}

  hostingPrices(region: string): Promise<Readonly<Record<string, number>>> {
    this.reads.push(region);
    const failure = this.failures.shift();
    return failure === undefined ? Promise.resolve(this.prices) : Promise.reject(failure);
  }
}

function noSleep(pauses: number[]): (ms: number) => Promise<void> {
  return (ms) => {
    pauses.push(ms);
    return Promise.resolve();
  };
}

describe('readPriceBook', () => {
  it('prices offline from the recorded table, naming its region, day and age', async () => {
    // Act
    const book = await readPriceBook({ now: () => PLANNED_AT, logger: silentLogger });

    // Assert
    expect(book.summary).toEqual({
      source: 'price-table',
      region: 'us-east-1',
      asOf: PRICE_TABLE_SOURCE.recordedOn,
      ageDays: 423,
    });
    expect(book.priceOf('ml.c5.xlarge')).toEqual({
      usdPerHour: 0.204,
      source: 'price-table',
      region: 'us-east-1',
      asOf: '2025-10-01',
    });
    expect(book.warnings).toEqual([]);
  });

  it("names the run's region in a plan made offline for another region, whose rows stand in from us-east-1", async () => {
    // Act
    const book = await readPriceBook({
      region: 'ap-northeast-1',
      now: () => PLANNED_AT,
      logger: silentLogger,
    });

    // Assert
    expect([book.summary.region, book.summary.runRegion, book.priceOf('ml.c5.xlarge')?.region]).toEqual([
      'us-east-1',
      'ap-northeast-1',
      'us-east-1',
    ]);
    expect(book.warnings).toEqual([expect.stringContaining("is the only source of ap-northeast-1's prices")]);
  });

  it('raises no age warning for prices read today', async () => {
    // Prepare
    const priceList = new RecordingPriceList({ 'ml.c5.xlarge': 0.23 });

    // Act
    const book = await readPriceBook({
      region: 'eu-west-1',
      priceList,
      now: () => PLANNED_AT,
      logger: silentLogger,
    });

    // Assert
    expect(book.summary).toEqual({
      source: 'price-list-api',
      region: 'eu-west-1',
      runRegion: 'eu-west-1',
      asOf: '2026-11-28',
      ageDays: 0,
    });
  });

  it('prices on AWS from the Price List for the run’s region, and the table for a type it does not price', async () => {
    // Prepare
    const priceList = new RecordingPriceList({ 'ml.c5.xlarge': 0.23, 'ml.g6e.2xlarge': 2.9 });

    // Act
    const book = await readPriceBook({
      region: 'eu-west-1',
      priceList,
      now: () => PLANNED_AT,
      logger: silentLogger,
    });

    // Assert
    expect(priceList.reads).toEqual(['eu-west-1']);
    expect(book.priceOf('ml.g6e.2xlarge')).toEqual({
      usdPerHour: 2.9,
      source: 'price-list',
      region: 'eu-west-1',
      asOf: '2026-11-28',
    });
    expect(book.priceOf('ml.m5.large')).toEqual({
      usdPerHour: 0.115,
      source: 'price-table',
      region: 'us-east-1',
      asOf: '2025-10-01',
    });
    expect(book.warnings).toEqual([]);
  });

  it('fails when the price read fails: falls back to the table with a warning naming the failure', async () => {
    // Prepare
    const denied = Object.assign(new Error('not authorized to perform: pricing:GetProducts'), {
      name: 'AccessDeniedException',
    });
    const priceList = new RecordingPriceList({}, [denied]);

    // Act
    const book = await readPriceBook({
      region: 'us-east-1',
      priceList,
      now: () => PLANNED_AT,
      logger: silentLogger,
    });

    // Assert: an error that is not transient is not retried.
    expect(priceList.reads).toEqual(['us-east-1']);
    expect(book.summary).toEqual({
      source: 'price-table',
      region: 'us-east-1',
      runRegion: 'us-east-1',
      asOf: '2025-10-01',
      ageDays: 423,
      fallbackReason:
        'the Price List API read failed: AccessDeniedException: not authorized to perform: pricing:GetProducts',
    });
    expect(book.warnings).toEqual([
      'prices: the Price List API read failed: AccessDeniedException: not authorized to perform: pricing:GetProducts; the plan uses the recorded table (us-east-1, recorded 2025-10-01)',
    ]);
    expect(book.priceOf('ml.c5.xlarge')?.source).toBe('price-table');
  });

  it('fails when the read stays throttled: retries with growing pauses, then falls back to the table', async () => {
    // Prepare
    const throttled = (): Error => new TransientServiceError('GetProducts throttled: Rate exceeded');
    const priceList = new RecordingPriceList({ 'ml.c5.xlarge': 0.23 }, [
      throttled(),
      throttled(),
      throttled(),
    ]);
    const pauses: number[] = [];

    // Act
    const book = await readPriceBook({
      region: 'us-east-1',
      priceList,
      now: () => PLANNED_AT,
      retry: { attempts: 3, firstDelayMs: 100, sleep: noSleep(pauses) },
      logger: silentLogger,
    });

    // Assert
    expect(priceList.reads).toHaveLength(3);
    expect(pauses).toEqual([100, 200]);
    expect(book.summary.source).toBe('price-table');
    expect(book.summary.fallbackReason).toBe(
      'the Price List API read failed: TransientServiceError: GetProducts throttled: Rate exceeded',
    );
  });

  it('reads live after one throttled attempt', async () => {
    // Prepare
    const priceList = new RecordingPriceList({ 'ml.c5.xlarge': 0.23 }, [
      new TransientServiceError('GetProducts throttled'),
    ]);

    // Act
    const book = await readPriceBook({
      region: 'us-east-1',
      priceList,
      now: () => PLANNED_AT,
      retry: { attempts: 3, firstDelayMs: 100, sleep: noSleep([]) },
      logger: silentLogger,
    });

    // Assert
    expect(priceList.reads).toHaveLength(2);
    expect(book.priceOf('ml.c5.xlarge')?.usdPerHour).toBe(0.23);
  });

  it('reads the day’s copy on the second plan of the day, and the API again once the day changes', async () => {
    // Prepare
    const store = new MemoryObjectStore();
    const priceList = new RecordingPriceList({ 'ml.c5.xlarge': 0.23 });
    let now = PLANNED_AT;
    const deps = {
      region: 'eu-west-1',
      priceList,
      cache: { store, bucket: BUCKET },
      now: () => now,
      logger: silentLogger,
    };

    // Act
    const first = await readPriceBook(deps);
    now = new Date('2026-11-28T23:59:00Z');
    const second = await readPriceBook(deps);
    now = new Date('2026-11-29T00:01:00Z');
    const nextDay = await readPriceBook(deps);

    // Assert
    expect(first.summary.source).toBe('price-list-api');
    expect(second.summary).toEqual({
      source: 'price-list-cache',
      region: 'eu-west-1',
      runRegion: 'eu-west-1',
      asOf: '2026-11-28',
      ageDays: 0,
    });
    expect(second.priceOf('ml.c5.xlarge')?.usdPerHour).toBe(0.23);
    expect(nextDay.summary.source).toBe('price-list-api');
    expect(priceList.reads).toEqual(['eu-west-1', 'eu-west-1']);
    expect(await store.head(priceCacheUri(BUCKET, 'eu-west-1', '2026-11-29'))).toBeDefined();
    expect(priceCacheUri(BUCKET, 'eu-west-1', '2026-11-28')).toBe(
      's3://mso-artifacts/catalog/prices/eu-west-1/2026-11-28.json',
    );
  });

  it('reads the API again when the day’s copy is not a price read', async () => {
    // Prepare
    const store = new MemoryObjectStore();
    await store.putBytes(
      priceCacheUri(BUCKET, 'eu-west-1', '2026-11-28'),
      new TextEncoder().encode('{"x":1}'),
    );
    const priceList = new RecordingPriceList({ 'ml.c5.xlarge': 0.23 });

    // Act
    const book = await readPriceBook({
      region: 'eu-west-1',
      priceList,
      cache: { store, bucket: BUCKET },
      now: () => PLANNED_AT,
      logger: silentLogger,
    });

    // Assert
    expect(book.summary.source).toBe('price-list-api');
    expect(priceList.reads).toEqual(['eu-west-1']);
  });

  it('fails when the read fails in a region the table does not cover: warns naming region, given and expected', async () => {
    // Prepare
    const priceList = new RecordingPriceList({}, [new Error('socket hang up')]);

    // Act
    const book = await readPriceBook({
      region: 'eu-west-1',
      priceList,
      now: () => PLANNED_AT,
      logger: silentLogger,
    });

    // Assert
    expect(book.warnings).toEqual([
      'prices: the Price List API read failed: Error: socket hang up; the plan uses the recorded table (us-east-1, recorded 2025-10-01)',
      'region: the run is in eu-west-1, and no public source read for the recorded price table gives eu-west-1\'s prices (it has rows for us-east-1 only): a type priced from it is priced at its us-east-1 figure, and its price says so; the AWS Price List API, which "Validate and plan" reads on AWS, is the only source of eu-west-1\'s prices; give them in pricing.usdPerHour["<type>"]',
    ]);
  });

  it('fails when the Price List prices nothing in the region: falls back to the table', async () => {
    // Prepare
    const priceList = new RecordingPriceList({});

    // Act
    const book = await readPriceBook({
      region: 'us-east-1',
      priceList,
      now: () => PLANNED_AT,
      logger: silentLogger,
    });

    // Assert
    expect(book.summary.fallbackReason).toBe(
      'the Price List API priced no SageMaker hosting instance in us-east-1',
    );
  });
});
