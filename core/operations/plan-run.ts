import {
  BudgetExceededError,
  describeError,
  InvalidRunInputError,
  apiFailure,
  type ApiReply,
  ApiErrorCodes,
  type PlannedRun,
  type RunWorkflow,
} from '../contracts/index.js';
import type { Logger } from '../ports/index.js';
import {
  type ParsedEvent,
  RUN_ROUTES,
  checkRunRequest,
  invalidRunInputReply,
  parseRunRequestEvent,
  type RunRequest,
} from '../run-status/index.js';

/**
 * `POST /runs/plan` and `POST /async-runs/plan`: the plan of a run before anyone pays for it. The
 * body is checked as `POST /runs` checks it (core/run-status/run-request.ts), then the
 * workflow's own first state plans it ("Validate and plan", or the planning half of "Validate async
 * run"), with the same read-only checks it runs on AWS: objects, serving images, Neo's support
 * table, instance quotas, history and payload budgets, the cost estimate. A refusal is the
 * state's own issue list; nothing is started, and the planners write nothing.
 *
 * The planners come from the Lambda entry (lambdas/plan-run.ts): a step module is imported by no
 * other module of core/ (test/architecture.test.ts), so this one gets them as ports.
 */

export type PlanRunRequest = RunRequest;

/** What a workflow's first state plans, without anything it would write. */
export interface PlannedWork {
  /** The state's plan (RunPlan, AsyncRunPlan): the same JSON as the local `--plan --json`. */
  readonly plan: { readonly runId: string };
  /** The async workflow's inputs, as its manifest would list them. */
  readonly items?: readonly { readonly itemIndex: number }[];
}

/** One workflow's planning: its first state's checks over the real read-only adapters. */
export type RunPlanner = (event: { readonly runId: string; readonly input: unknown }) => Promise<PlannedWork>;

export interface PlanRunDeps {
  /** The deployed workflows' planners; a workflow not deployed has none. */
  readonly planners: Readonly<Partial<Record<RunWorkflow, RunPlanner>>>;
  readonly logger: Logger;
}

export type PlanRunReply = ApiReply<PlannedRun>;

/**
 * `/runs/plan` → optimization, `/async-runs/plan` → async inference, or the 400 answer to an event
 * API Gateway would not send.
 */
export function parsePlanRunEvent(event: unknown): ParsedEvent<PlanRunRequest> {
  return parseRunRequestEvent(event, RUN_ROUTES.plan);
}

export async function planRun(request: PlanRunRequest, deps: PlanRunDeps): Promise<PlanRunReply> {
  const checked = checkRunRequest(request);
  if ('refusal' in checked) return checked.refusal;
  const { runId } = checked;
  const planner = deps.planners[request.workflow];
  if (planner === undefined) {
    return apiFailure(
      500,
      ApiErrorCodes.internal,
      `plan-run has no planner for the ${request.workflow} workflow: the RunApi construct ` +
        '(infra/constructs/run-api.ts) routes only the workflows it deploys',
    );
  }
  try {
    const planned = await planner({ runId, input: checked.input });
    deps.logger.info('Run planned through the API', { workflow: request.workflow, runId });
    return {
      statusCode: 200,
      body: {
        runId,
        workflow: request.workflow,
        plan: planned.plan,
        ...(planned.items === undefined ? {} : { items: [...planned.items] }),
      },
    };
  } catch (error) {
    if (error instanceof InvalidRunInputError) return invalidRunInputReply(error.issues);
    if (error instanceof BudgetExceededError) {
      return apiFailure(400, ApiErrorCodes.budgetExceeded, error.message);
    }
    deps.logger.error('Planning failed', { workflow: request.workflow, runId, error: describeError(error) });
    return apiFailure(
      500,
      ApiErrorCodes.internal,
      `Planning the run failed: ${describeError(error)}. Nothing was created. The plan-run Lambda's ` +
        'logs have the details; its role is set in infra/constructs/run-api.ts.',
    );
  }
}
