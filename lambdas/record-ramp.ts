import type { RecordRampEvent } from '../core/contracts/index.js';
import { recordRamp } from '../core/steps/optimization/record-ramp.js';
import { ApplicationAutoScalingInstanceSeries } from './adapters/index.js';
import { createApplicationAutoScalingClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { s3Store } from './wiring.js';

const store = s3Store();
/** The ramp endpoint's instance counts, from its variant's scaling activities. */
const series = new ApplicationAutoScalingInstanceSeries({
  autoScaling: createApplicationAutoScalingClient(),
});

/** States "Record ramp" and "Record failed ramp". */
export const handler = defineStep((event: RecordRampEvent, { logger }) =>
  recordRamp(event, {
    store,
    logger,
    series,
    seriesSource:
      'from the variant’s Application Auto Scaling activities: starting from each scale-out’s start, in service at its end',
  }),
);
