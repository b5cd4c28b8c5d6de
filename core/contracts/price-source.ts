/**
 * Where the catalog's recorded prices come from (catalog/instances.ts): SageMaker real-time
 * inference on-demand, us-east-1, USD per instance-hour, as listed on
 * https://aws.amazon.com/sagemaker/pricing/ ("Real-Time Inference"). The plan's estimate and the
 * report name it beside every price taken from the table.
 */
export const PRICE_TABLE_SOURCE = {
  url: 'https://aws.amazon.com/sagemaker/pricing/',
  region: 'us-east-1',
  kind: 'Real-Time Inference, on-demand, per instance-hour',
  recordedOn: '2025-10-01',
} as const;

/** The regions whose prices the recorded table holds: a plan for another region warns. */
export const PRICE_TABLE_REGIONS: readonly string[] = [PRICE_TABLE_SOURCE.region];
