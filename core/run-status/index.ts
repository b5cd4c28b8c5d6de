/**
 * What other rooms import from core/run-status/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export type {
  ExecutionDescription,
  ExecutionReader,
  HistoryEventLine,
  HistoryEventView,
  ListedExecution,
  ObjectPresigner,
  RunEventReader,
  RunLister,
  RunRef,
  RunStartOutcome,
  RunStarter,
  RunStopper,
} from './ports.js';
export type { ProgressProfile } from './progress.js';
export { readProgress } from './progress.js';
export type { ParsedEvent } from './proxy-event.js';
export { RUN_ROUTES, parseProxyEvent, requestContextSchema, resourceSchema } from './proxy-event.js';
export type { RunRequest } from './run-request.js';
export { checkRunRequest, invalidRunInputReply, parseRunRequestEvent } from './run-request.js';
export { resultsOf } from './run-results.js';
export type { RunRouteRequest } from './run-routes.js';
export { isReply, parseRunRouteEvent, runNotFound, runOf, unexpectedFailure } from './run-routes.js';
export { WORKFLOW_PROGRESS } from './workflow-profiles.js';
