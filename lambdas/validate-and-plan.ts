import type { ValidateAndPlanEvent } from '../handlers/contracts/optimization-state.js';
import { validateAndPlan } from '../handlers/validate-and-plan.js';
import { ServiceQuotasInstanceReader } from './adapters/service-quotas-reader.js';
import { createServiceQuotasClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { artifactsBucket, compilationTimings, endpointTimings, region, s3Store } from './wiring.js';

const store = s3Store();
const bucket = artifactsBucket();
const servingRegion = region();
const instanceQuotas = new ServiceQuotasInstanceReader(createServiceQuotasClient());
// Read as the polling steps read them, so the worst-case history counts the schedule they follow.
const polling = { endpoint: endpointTimings(), compilation: compilationTimings() };

/**
 * State "Validate and plan". `file://` URIs are refused: a Lambda cannot read the user's disk. The
 * region's serving images and the account's instance quotas are checked here, before anything is
 * created.
 */
export const handler = defineStep((event: ValidateAndPlanEvent, { logger }) =>
  validateAndPlan(event, {
    store,
    artifactsBucket: bucket,
    allowFileUris: false,
    servingRegion,
    polling,
    instanceQuotas,
    logger,
  }),
);
