import type { HostingPriceList, InstanceFactsReader } from '../catalog/index.js';
import type { RunInput } from '../contracts/index.js';
import type { Logger, ObjectStore } from '../ports/index.js';
import { type FactBook, readFactBook } from './instance-facts-source.js';
import type { LiveReadRetry } from './live-read.js';
import { type PriceBook, readPriceBook } from './price-source.js';

/** The live market of a region: prices (kept for the day in the artifacts bucket) and EC2's facts. */
export interface MarketReaders {
  /** The region whose market is read. @default the serving region */
  readonly region?: string;
  readonly prices?: HostingPriceList;
  readonly facts?: InstanceFactsReader;
  /** Write the day's price read to the artifacts bucket. @default true (the run API's plan route reads only) */
  readonly keepPrices?: boolean;
  /** How throttled reads are retried. @default DEFAULT_LIVE_READ_RETRY */
  readonly retry?: LiveReadRetry;
}

/** What the market reads with: the readers, where the day's prices are kept, the clock. */
export interface MarketReadDeps {
  readonly market?: MarketReaders;
  readonly servingRegion?: string;
  readonly store: ObjectStore;
  readonly artifactsBucket: string;
  readonly now?: () => Date;
  readonly logger: Logger;
}

/** The prices and instance facts a plan uses, and the candidates' instance types they were read for. */
export interface MarketRead {
  readonly prices: PriceBook;
  readonly facts: FactBook;
  readonly candidateTypes: readonly string[];
}

/**
 * Reads the run region's prices and the candidates' instance facts live, each falling back to the
 * recorded tables when its read fails or no reader is given (the plan says which was used and why).
 */
export async function readMarket(input: RunInput, deps: MarketReadDeps): Promise<MarketRead> {
  const candidateTypes = input.candidates.flatMap((c) => ('instanceType' in c ? [c.instanceType] : []));
  const market = {
    region: deps.market?.region ?? deps.servingRegion,
    retry: deps.market?.retry,
    logger: deps.logger,
  };
  const prices = await readPriceBook({
    ...market,
    priceList: deps.market?.prices,
    cache: { store: deps.store, bucket: deps.artifactsBucket, readOnly: deps.market?.keepPrices === false },
    now: deps.now ?? (() => new Date()),
  });
  const facts = await readFactBook(candidateTypes, { ...market, reader: deps.market?.facts });
  return { prices, facts, candidateTypes };
}
