import type { APIGatewayProxyResult } from 'aws-lambda';
import { parsePlanRunEvent, planRun } from '../handlers/plan-run.js';
import { RunWorkflows } from '../handlers/run-status/run-api-contract.js';
import { validateAndPlan } from '../handlers/validate-and-plan.js';
import { toProxyResult } from './run-api-wiring.js';
import { defineStep } from './step.js';
import { validateAndPlanDeps } from './wiring.js';

/** The adapters and settings of the "Validate and plan" Lambda: the same checks, read-only. */
const planningDeps = validateAndPlanDeps();

/**
 * `POST /runs/plan` (Lambda proxy integration of the run API): "Validate and plan" itself, which
 * writes nothing (it reads the run's objects, the image table and the account's quotas).
 */
export const handler = defineStep(async (event: unknown, { logger }): Promise<APIGatewayProxyResult> =>
  toProxyResult(
    await planRun(parsePlanRunEvent(event), {
      planners: {
        [RunWorkflows.optimization]: async (run) => ({
          plan: await validateAndPlan(run, { ...planningDeps, logger }),
        }),
      },
      logger,
    }),
  ),
);
