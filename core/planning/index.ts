/**
 * What other rooms import from core/planning/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export { parseApprovedModelRunTemplate } from './approved-model-template-check.js';
export { checkedAsyncRunInputSchema, parseAsyncRunInput } from './async-run-input-check.js';
export { expandCandidates, planCandidates } from './candidates.js';
export { loadGeneratorUsd } from './estimates.js';
export { asyncHistoryIssue } from './history-limit.js';
export type { AsyncHistoryShape } from './history-model.js';
export { pollRoundsWithin } from './history-model.js';
export type { InputRuleContext } from './input-rules.js';
export { asyncInputIssues, optimizationInputIssues } from './input-rules.js';
export { candidatesInFlightWithin, checkInstanceQuotas, endpointUsageQuotaName } from './instance-quotas.js';
export { loadPlanThatFits } from './load-plan-rounds.js';
export type { MarketReaders } from './market-reads.js';
export { readMarket } from './market-reads.js';
export type { ObjectReference } from './object-checks.js';
export { capIssues, checkObjects, objectUriIssues } from './object-checks.js';
export type { OptimizationLimitSettings } from './optimization-limits.js';
export { asyncBudgets } from './optimization-limits.js';
export {
  checkCandidatePrices,
  checkCost,
  checkExecutionLimits,
  checkInputRules,
  checkModelFit,
  checkRunId,
  checkShortlist,
} from './plan-checks.js';
export { planWarnings } from './plan-warnings.js';
export { plannedQuality } from './quality-plan.js';
export { parseRunInput } from './run-input-check.js';
export { checkRunObjects, checkStreamPayloads, plannedPromptSet } from './run-objects.js';
export type { PlanParts } from './run-plan.js';
export { planCompilations, planWithinLimits, withFiguresOfCheckedPlan } from './run-plan.js';
export { provePlanOf, rampTestPlanOf } from './serving-phases.js';
