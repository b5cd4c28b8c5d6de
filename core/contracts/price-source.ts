/**
 * The recorded price table as the plan and the report name it: SageMaker real-time inference
 * on-demand, us-east-1, USD per instance-hour, first recorded from
 * https://aws.amazon.com/sagemaker/pricing/ ("Real-Time Inference") on `recordedOn`. Each row of the
 * table (catalog/price-table.ts) names its own source and date, which a candidate priced from it
 * carries (`priceAsOf`).
 */
export const PRICE_TABLE_SOURCE = {
  url: 'https://aws.amazon.com/sagemaker/pricing/',
  region: 'us-east-1',
  kind: 'Real-Time Inference, on-demand, per instance-hour',
  recordedOn: '2025-10-01',
} as const;
