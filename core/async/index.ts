/**
 * What other rooms import from core/async/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export { estimateAsyncRun } from './async-estimate.js';
export type { BatchDeps } from './batch-results.js';
export { batchResultsUri } from './batch-results.js';
export { completedResults } from './completed-results.js';
export type { PrepareAsyncEndpointDeps } from './endpoint-loop.js';
export { SCALE_IN_DEADLINE_SECONDS, scaleInDeadline } from './endpoint-loop.js';
export { generatedTokensOf } from './generated-tokens.js';
export type {
  CompletedNotification,
  FailedNotification,
  InferenceNotification,
  ParsedNotification,
} from './notification.js';
export { InvocationStatuses, inferenceIdProblem, parseNotification } from './notification.js';
export type {
  AsyncInvocationReceipt,
  AsyncInvocationRequest,
  AsyncInvoker,
  ConditionalOutcome,
  DeniedAction,
  EndpointRoleReader,
  NewTaskTokenRecord,
  PolicyCheck,
  PolicySimulation,
  PolicySimulator,
  PutOutcome,
  TaskCallOutcome,
  TaskGoneReason,
  TaskResumer,
  TaskTokenRecord,
  TaskTokenStore,
} from './ports.js';
export { TaskGoneReasons } from './ports.js';
export { checkReusedEndpointRole } from './reused-endpoint-role.js';
export { asyncRunOutcomeOf } from './run-outcome.js';
export { asyncReportUris, writeAsyncReport } from './write-async-report.js';
