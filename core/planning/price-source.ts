import {
  PRICE_TABLE_SOURCES,
  RECORDED_PRICE_FALLBACK_REGION,
  RECORDED_PRICE_REGIONS,
  recordedPriceOf,
} from '../catalog/index.js';
import { PRICE_TABLE_SOURCE, describeError, ArtifactPrefix, s3Uri } from '../contracts/index.js';
import type { HostingPriceList } from '../catalog/index.js';
import type { CandidatePrice, PlannedPriceSource } from '../contracts/index.js';
import type { Logger, ObjectStore } from '../ports/index.js';
import { daysSince, type LiveReadRetry, utcDay, withLiveReadRetry } from './live-read.js';

/**
 * The instance prices a plan uses. On AWS (a region and a price list): SageMaker's on-demand
 * hosting prices for the run's region from the AWS Price List API, kept for the rest of the UTC day
 * in the artifacts bucket (`catalog/prices/<region>/<day>.json`) so that later plans that day read
 * the copy instead of the API; a type the list does not price in the region, and every type when
 * the read fails (after retries while throttled), takes the recorded table's price, and the plan
 * says why. Offline: the recorded table. The table's rows are of the regions a public source gives
 * (catalog/price-table.ts): a run in another region is priced from the us-east-1 row, and the plan
 * says that region has no recorded price. Async hosting bills the same instance-hours, so the same
 * prices serve both workflows.
 */

export interface PriceSourceDeps {
  /** The run's region on AWS; absent offline (the recorded table only). */
  readonly region?: string;
  /** Absent offline. */
  readonly priceList?: HostingPriceList;
  /** Where a day's read is kept (`readOnly`: read the copy, write none); absent: every plan reads the API. */
  readonly cache?: { readonly store: ObjectStore; readonly bucket: string; readonly readOnly?: boolean };
  readonly now: () => Date;
  readonly retry?: LiveReadRetry;
  readonly logger: Logger;
}

export interface PriceBook {
  readonly summary: PlannedPriceSource;
  /** Warnings for the plan: a failed live read, a region the recorded table does not cover. */
  readonly warnings: readonly string[];
  /** The live price of the type, else the recorded one; undefined when neither has one. */
  priceOf(instanceType: string): CandidatePrice | undefined;
  /** What a candidate on a type `priceOf` has no price for needs: where the book looked, what to do. */
  unpricedExpectation(instanceType: string): string;
}

/** What the cache object holds: one region's prices as read on one day. */
interface CachedPrices {
  readonly region: string;
  readonly readOn: string;
  readonly usdPerHour: Readonly<Record<string, number>>;
}

/** The cache object of a region and day, in the artifacts bucket. */
export function priceCacheUri(bucket: string, region: string, day: string): string {
  return s3Uri(bucket, `${ArtifactPrefix.prices}${region}/${day}.json`);
}

export async function readPriceBook(deps: PriceSourceDeps): Promise<PriceBook> {
  const now = deps.now();
  const { region, priceList } = deps;
  if (region === undefined || priceList === undefined) return tableBook(now, region);
  const day = utcDay(now);
  const cached = await readCache(deps, region, day);
  if (cached !== undefined) return liveBook(cached, 'price-list-cache', now);
  try {
    const usdPerHour = await withLiveReadRetry(() => priceList.hostingPrices(region), deps.retry);
    if (Object.keys(usdPerHour).length === 0) {
      return tableBook(now, region, `the Price List API priced no SageMaker hosting instance in ${region}`);
    }
    const read: CachedPrices = { region, readOn: day, usdPerHour };
    await writeCache(deps, read);
    return liveBook(read, 'price-list-api', now);
  } catch (error) {
    deps.logger.warn('Prices could not be read from the Price List API: the plan uses the recorded table', {
      region,
      error: describeError(error),
    });
    return tableBook(now, region, `the Price List API read failed: ${describeError(error)}`);
  }
}

/** The table's row of the type in the run's region, else its us-east-1 row. */
function recordedPrice(instanceType: string, region: string | undefined): CandidatePrice | undefined {
  const row =
    (region === undefined ? undefined : recordedPriceOf(instanceType, region)) ??
    recordedPriceOf(instanceType, RECORDED_PRICE_FALLBACK_REGION);
  return row === undefined
    ? undefined
    : {
        usdPerHour: row.usdPerHour,
        source: 'price-table',
        region: row.region,
        asOf: PRICE_TABLE_SOURCES[row.source].asOf,
      };
}

/** What the recorded table holds, for a refusal. */
function tableRows(): string {
  return `the recorded price table has no row for it (no public source read gives one; its rows are of ${RECORDED_PRICE_REGIONS.join(', ')})`;
}

/** The refusal's text: the type, the region, where the book looked (`looked`), what to do. */
function unpricedText(
  instanceType: string,
  region: string | undefined,
  looked: string,
  live: boolean,
): string {
  const where = region === undefined ? '' : ` in ${region}`;
  const give = `give its on-demand USD per instance-hour in pricing.usdPerHour["${instanceType}"]`;
  return live
    ? `a price for ${instanceType}${where}: ${looked}, and ${tableRows()}; ${give}`
    : `a price for ${instanceType}${where}: ${looked}, and ${tableRows()}; ${give}, or plan the run on AWS, where "Validate and plan" reads the region's prices from the AWS Price List API`;
}

function liveBook(read: CachedPrices, source: 'price-list-api' | 'price-list-cache', now: Date): PriceBook {
  return {
    summary: {
      source,
      region: read.region,
      runRegion: read.region,
      asOf: read.readOn,
      ageDays: daysSince(read.readOn, now),
    },
    warnings: [],
    priceOf: (instanceType) => {
      const usdPerHour = read.usdPerHour[instanceType];
      return usdPerHour === undefined
        ? recordedPrice(instanceType, read.region)
        : { usdPerHour, source: 'price-list', region: read.region, asOf: read.readOn };
    },
    unpricedExpectation: (instanceType) =>
      unpricedText(
        instanceType,
        read.region,
        `the AWS Price List API prices no SageMaker hosting of it there (read ${read.readOn})`,
        true,
      ),
  };
}

/**
 * The recorded table: offline (no region: the local run; a region: a plan made offline for it), or
 * on AWS after a failed read (`fallbackReason`).
 */
function tableBook(now: Date, region?: string, fallbackReason?: string): PriceBook {
  const ageDays = daysSince(PRICE_TABLE_SOURCE.recordedOn, now);
  const otherRegion =
    region !== undefined && !RECORDED_PRICE_REGIONS.includes(region)
      ? `region: the run is in ${region}, and no public source read for the recorded price table gives ${region}'s prices ` +
        `(it has rows for ${RECORDED_PRICE_REGIONS.join(', ')} only): a type priced from it is priced at its ` +
        `${RECORDED_PRICE_FALLBACK_REGION} figure, and its price says so; the AWS Price List API, which "Validate and plan" ` +
        `reads on AWS, is the only source of ${region}'s prices; give them in pricing.usdPerHour["<type>"]`
      : undefined;
  const warnings = [
    ...(fallbackReason === undefined
      ? []
      : [
          `prices: ${fallbackReason}; the plan uses the recorded table (${PRICE_TABLE_SOURCE.region}, recorded ${PRICE_TABLE_SOURCE.recordedOn})`,
        ]),
    ...(otherRegion === undefined ? [] : [otherRegion]),
  ];
  const looked =
    fallbackReason !== undefined
      ? `no live price could be read (${fallbackReason})`
      : region === undefined
        ? 'a local run reads no live price'
        : 'a plan made offline reads no live price';
  return {
    summary: {
      source: 'price-table',
      region: PRICE_TABLE_SOURCE.region,
      ...(region === undefined ? {} : { runRegion: region }),
      asOf: PRICE_TABLE_SOURCE.recordedOn,
      ageDays,
      ...(fallbackReason === undefined ? {} : { fallbackReason }),
    },
    warnings,
    priceOf: (instanceType) => recordedPrice(instanceType, region),
    unpricedExpectation: (instanceType) => unpricedText(instanceType, region, looked, false),
  };
}

async function readCache(
  deps: PriceSourceDeps,
  region: string,
  day: string,
): Promise<CachedPrices | undefined> {
  const cache = deps.cache;
  if (cache === undefined) return undefined;
  const uri = priceCacheUri(cache.bucket, region, day);
  try {
    if ((await cache.store.head(uri)) === undefined) return undefined;
    const parsed: unknown = JSON.parse(new TextDecoder().decode(await cache.store.getBytes(uri)));
    if (isCachedPrices(parsed) && parsed.region === region && parsed.readOn === day) return parsed;
    deps.logger.warn('The cached prices are not a price read of this region and day: reading them again', {
      uri,
    });
  } catch (error) {
    deps.logger.warn('The cached prices could not be read: reading them again', {
      uri,
      error: describeError(error),
    });
  }
  return undefined;
}

/** A failed write costs only a second read later: the plan goes on. */
async function writeCache(deps: PriceSourceDeps, read: CachedPrices): Promise<void> {
  const cache = deps.cache;
  if (cache === undefined || cache.readOnly === true) return;
  const uri = priceCacheUri(cache.bucket, read.region, read.readOn);
  try {
    await cache.store.putBytes(uri, new TextEncoder().encode(JSON.stringify(read)), 'application/json');
  } catch (error) {
    deps.logger.warn('The prices read could not be kept for the day: the next plan reads them again', {
      uri,
      error: describeError(error),
    });
  }
}

function isCachedPrices(value: unknown): value is CachedPrices {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const prices = record.usdPerHour;
  return (
    typeof record.region === 'string' &&
    typeof record.readOn === 'string' &&
    typeof prices === 'object' &&
    prices !== null &&
    Object.values(prices).every((price) => typeof price === 'number' && price > 0)
  );
}
