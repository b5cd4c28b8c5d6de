import type { ValidateAndPlanEvent } from '../core/contracts/index.js';
import { validateAndPlan } from '../core/steps/optimization/validate-and-plan.js';
import { defineStep } from './step.js';
import { validateAndPlanDeps } from './wiring.js';

const deps = validateAndPlanDeps();

/**
 * State "Validate and plan". `file://` URIs are refused: a Lambda cannot read the user's disk. The
 * region's serving images and the account's instance quotas are checked here, before anything is
 * created.
 */
export const handler = defineStep((event: ValidateAndPlanEvent, { logger }) =>
  validateAndPlan(event, { ...deps, logger }),
);
