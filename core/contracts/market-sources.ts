/**
 * Where a plan's instance prices and instance facts came from, as "Validate and plan" writes them
 * into the plan (and the local `--plan` prints them). On AWS they are read live for the run's
 * region (the Price List API and EC2 DescribeInstanceTypes); offline, and when a live read fails,
 * they come from the recorded tables of `core/catalog/`, and the plan says why.
 */

/**
 * `price-list-api`: read from the AWS Price List API at planning; `price-list-cache`: the same
 * read, kept for the day in the artifacts bucket by an earlier plan; `price-table`: the recorded
 * table (core/catalog/instances.ts PRICE_TABLE_SOURCE).
 */
export type PriceBookSource = 'price-list-api' | 'price-list-cache' | 'price-table';

/** How old a recorded price may be before the plan warns that it may have changed. */
export const PRICE_AGE_WARNING_DAYS = 180;

export interface PlannedPriceSource {
  readonly source: PriceBookSource;
  /** The region the prices are for. */
  readonly region: string;
  /**
   * The region the run serves in, when the prices were looked up for one (on AWS, or a plan made
   * offline for it); absent for a local run. A candidate priced from another region's recorded row
   * (`priceRegion`) is then marked as such.
   */
  readonly runRegion?: string;
  /** The day the prices were read (live or cached) or recorded (the table), `YYYY-MM-DD`. */
  readonly asOf: string;
  /** Whole days from `asOf` to the day of planning. */
  readonly ageDays: number;
  /** Why the recorded table was used on AWS: the live read that failed, and how. */
  readonly fallbackReason?: string;
}

/**
 * `ec2-describe-instance-types`: the candidates' EC2 twins as EC2 describes them in the region;
 * `instance-table`: the generated table (core/catalog/instance-table.ts).
 */
export type FactBookSource = 'ec2-describe-instance-types' | 'instance-table';

export interface PlannedFactSource {
  readonly source: FactBookSource;
  /** The region EC2 was asked in; absent for the table. */
  readonly region?: string;
  /** The candidate types whose facts EC2 gave; the others keep the table's (no EC2 twin there). */
  readonly readTypes?: readonly string[];
  /** Why the table was used on AWS. */
  readonly fallbackReason?: string;
}

/** A candidate's price and where it came from. */
export interface CandidatePrice {
  readonly usdPerHour: number;
  readonly source: 'price-list' | 'price-table';
  readonly region: string;
  readonly asOf: string;
}
