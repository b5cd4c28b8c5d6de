/**
 * What other rooms import from infra/constructs/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export type { ArtifactsStoreProps } from './artifacts-store.js';
export { ArtifactsStore } from './artifacts-store.js';
export type { AsyncInferenceSettings } from './async-inference.js';
export { AsyncInference } from './async-inference.js';
export type { ModelApprovalTriggerProps } from './model-approval-trigger.js';
export {
  MODEL_PACKAGE_GROUP_EXPECTED,
  ModelApprovalTrigger,
  modelApprovalTemplateIssues,
} from './model-approval-trigger.js';
export { OperationsDashboard } from './operations-dashboard.js';
export { createOptimizationSteps } from './optimization-steps.js';
export { REPO_ROOT } from './paths.js';
export { ProjectFunction } from './project-function.js';
export type { ApiLogging, RunApiThrottling } from './run-api.js';
export { ApiLoggingModes, RunApi, parseApiLogging } from './run-api.js';
export { RunNotifications } from './run-notifications.js';
export type { RunScheduleSettings } from './run-schedules.js';
export { RunSchedules, SCHEDULED_WORKFLOWS, scheduledRunInputIssues } from './run-schedules.js';
export type { JanitorSettings } from './safety-net.js';
export { RESOURCE_CREATING_STEPS, SafetyNet, janitorMaxAgeHoursRange } from './safety-net.js';
export { SageMakerExecutionRole } from './sagemaker-execution-role.js';
export {
  SCHEDULE_EXPRESSION_EXPECTED,
  SCHEDULE_NAME_EXPECTED,
  SCHEDULE_NAME_PATTERN,
  TIME_ZONE_EXPECTED,
  isScheduleExpression,
  isTimeZone,
} from './schedule-settings.js';
export { ScopeServiceInvocationsToAccount } from './service-invoke-permissions.js';
export type { StepLambdaFactory, StepLambdaOptions } from './step-lambda-factory.js';
