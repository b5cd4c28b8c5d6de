import type { APIGatewayProxyResult } from 'aws-lambda';
import { planAsyncRun } from '../core/steps/async/validate-async-run.js';
import { parsePlanRunEvent, planRun, type RunPlanner } from '../core/operations/plan-run.js';
import type { Logger } from '../core/ports/index.js';
import { type RunWorkflow, RunWorkflows } from '../core/contracts/index.js';
import { validateAndPlan } from '../core/steps/optimization/validate-and-plan.js';
import { validateAsyncRunDeps } from './async-wiring.js';
import { getOptionalEnv, StepVariables } from './config.js';
import { answerProxyEvent } from './run-api-wiring.js';
import { defineStep } from './step.js';
import { validateAndPlanDeps } from './wiring.js';

/**
 * The adapters and settings of the "Validate and plan" Lambda: the same checks, read-only (it reads
 * the day's copy of the prices, and writes none).
 */
const planningDeps = validateAndPlanDeps();
const optimizationDeps = { ...planningDeps, market: { ...planningDeps.market, keepPrices: false } };
/**
 * Those of "Validate async run", when the RunApi construct routes `POST /async-runs/plan` (it then
 * sets the async workflow's variables, infra/constructs/run-api.ts).
 */
const asyncDeps =
  getOptionalEnv(StepVariables.asyncSuccessTopicArn) === undefined ? undefined : validateAsyncRunDeps();

/**
 * The first states' planning, which writes nothing: "Validate and plan" reads the run's objects,
 * the image table, the account's quotas and the region's prices and instance facts; `planAsyncRun` is "Validate async run" without its
 * manifest write.
 */
function planners(logger: Logger): Partial<Record<RunWorkflow, RunPlanner>> {
  return {
    [RunWorkflows.optimization]: async (run) => ({
      plan: await validateAndPlan(run, { ...optimizationDeps, logger }),
    }),
    ...(asyncDeps === undefined
      ? {}
      : {
          [RunWorkflows.asyncInference]: async (run) =>
            await planAsyncRun(run, { ...asyncDeps, nowEpochMs: Date.now, logger }),
        }),
  };
}

/** `POST /runs/plan` and `POST /async-runs/plan` (Lambda proxy integration of the run API). */
export const handler = defineStep(
  async (event: unknown, { logger }): Promise<APIGatewayProxyResult> =>
    await answerProxyEvent(parsePlanRunEvent(event), logger, (request) =>
      planRun(request, { planners: planners(logger), logger }),
    ),
);
