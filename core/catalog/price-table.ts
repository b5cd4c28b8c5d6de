/**
 * The recorded prices of SageMaker real-time hosting: on-demand USD per instance-hour, one row per
 * instance type and region, each naming the public source it was read from and that source's date.
 * The planner uses them offline, and on AWS for a type the Price List API does not price (or when
 * its read fails). A figure no public source gives is not recorded: a candidate on such a type is
 * priced live on AWS, or by the run input's `pricing.usdPerHour`.
 */

/** Where recorded prices were read. */
export interface PriceTableSource {
  /** A page address, or a repository file as `github.com/<owner>/<repo>/blob/<commit>/<path>`. */
  readonly url: string;
  /** What was read there, and what it says of the region. */
  readonly readFrom: string;
  /** The source's date (`YYYY-MM-DD`): when its figures were last set, as far as it says. */
  readonly asOf: string;
}

export const PRICE_TABLE_SOURCES = {
  'sagemaker-pricing-page': {
    url: 'https://aws.amazon.com/sagemaker/pricing/',
    readFrom:
      'On-Demand Pricing, "Real-Time Inference" tab, US East (N. Virginia), as the maintainers recorded it',
    asOf: '2025-10-01',
  },
  'fmbench-pricing': {
    url: 'https://github.com/aws-samples/foundation-model-benchmarking-tool/blob/39ce6b9c3572bf620a60c288c5b473462c5bc2eb/fmbench/configs/pricing.yml',
    readFrom:
      'pricing.instance_based, the ml. rows ("SageMaker Hourly Instance Pricing" in pricing_fallback.yml beside it). ' +
      'The file names no region; its figures are us-east-1 ones: they equal the pricing page’s US East (N. Virginia) ' +
      'figures for the types both list (ml.c5.xlarge 0.204, ml.g5.2xlarge 1.515, ml.inf2.xlarge 0.99, ml.p3.2xlarge 3.825). ' +
      'Its date is that of the commit that last changed the file (d8814208fb3a9b6f0aa7e986e868ea3759d801ce)',
    asOf: '2025-01-26',
  },
} as const satisfies Readonly<Record<string, PriceTableSource>>;

export type PriceTableSourceId = keyof typeof PRICE_TABLE_SOURCES;

export interface RecordedPrice {
  readonly instanceType: string;
  readonly region: string;
  readonly usdPerHour: number;
  readonly source: PriceTableSourceId;
}

type Row = readonly [instanceType: string, usdPerHour: number];

function rows(region: string, source: PriceTableSourceId, prices: readonly Row[]): RecordedPrice[] {
  return prices.map(([instanceType, usdPerHour]) => ({ instanceType, region, usdPerHour, source }));
}

/**
 * The rows. A type both sources give keeps the pricing page's figure (the newer source); the
 * FMBench file adds the sizes the page's recorded rows leave out. No public source read gives a
 * region other than us-east-1, so no other region is recorded.
 */
export const RECORDED_PRICES: readonly RecordedPrice[] = [
  ...rows('us-east-1', 'sagemaker-pricing-page', [
    ['ml.t2.medium', 0.056],
    ['ml.t2.large', 0.111],
    ['ml.t2.xlarge', 0.223],
    ['ml.m5.large', 0.115],
    ['ml.m5.xlarge', 0.23],
    ['ml.m5.2xlarge', 0.461],
    ['ml.m5.4xlarge', 0.922],
    ['ml.m5.12xlarge', 2.765],
    ['ml.c5.large', 0.102],
    ['ml.c5.xlarge', 0.204],
    ['ml.c5.2xlarge', 0.408],
    ['ml.c5.4xlarge', 0.816],
    ['ml.c5.9xlarge', 1.836],
    ['ml.c5.18xlarge', 3.672],
    ['ml.c6g.large', 0.082],
    ['ml.c6g.xlarge', 0.163],
    ['ml.c6g.2xlarge', 0.326],
    ['ml.c6g.4xlarge', 0.653],
    ['ml.m6g.large', 0.092],
    ['ml.m6g.xlarge', 0.184],
    ['ml.m6g.2xlarge', 0.368],
    ['ml.g4dn.xlarge', 0.736],
    ['ml.g4dn.2xlarge', 0.94],
    ['ml.g4dn.4xlarge', 1.505],
    ['ml.g4dn.8xlarge', 2.72],
    ['ml.g5.xlarge', 1.408],
    ['ml.g5.2xlarge', 1.515],
    ['ml.g5.4xlarge', 2.03],
    ['ml.p3.2xlarge', 3.825],
    ['ml.inf1.xlarge', 0.297],
    ['ml.inf1.2xlarge', 0.471],
    ['ml.inf1.6xlarge', 1.533],
    ['ml.inf2.xlarge', 0.99],
    ['ml.inf2.8xlarge', 2.36],
  ]),
  ...rows('us-east-1', 'fmbench-pricing', [
    ['ml.c7i.xlarge', 0.214],
    ['ml.g4dn.12xlarge', 4.89],
    ['ml.g4dn.16xlarge', 5.44],
    ['ml.g5.8xlarge', 3.06],
    ['ml.g5.12xlarge', 7.09],
    ['ml.g5.24xlarge', 10.18],
    ['ml.g5.48xlarge', 20.36],
    ['ml.g6.2xlarge', 1.222],
    ['ml.g6.12xlarge', 5.752],
    ['ml.g6.16xlarge', 4.246],
    ['ml.g6.24xlarge', 8.344],
    ['ml.g6.48xlarge', 16.688],
    ['ml.inf2.24xlarge', 7.79],
    ['ml.inf2.48xlarge', 15.58],
    ['ml.p4d.24xlarge', 37.688],
    ['ml.p5.48xlarge', 113.068],
    ['ml.trn1.32xlarge', 28.497],
  ]),
];

/** The regions the table has rows for. */
export const RECORDED_PRICE_REGIONS: readonly string[] = [
  ...new Set(RECORDED_PRICES.map((row) => row.region)),
];

/** The region whose rows price a run in a region the table does not cover. */
export const RECORDED_PRICE_FALLBACK_REGION = 'us-east-1';

const BY_REGION_AND_TYPE = new Map(RECORDED_PRICES.map((row) => [`${row.region} ${row.instanceType}`, row]));

/** The recorded row of a type in a region; undefined when no source read gives it. */
export function recordedPriceOf(
  instanceType: string,
  region: string = RECORDED_PRICE_FALLBACK_REGION,
): RecordedPrice | undefined {
  return BY_REGION_AND_TYPE.get(`${region} ${instanceType}`);
}
