/**
 * What other rooms import from core/contracts/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export type {
  ApprovedModelRunTemplate,
  ApprovedModelRunTemplateDocument,
} from './approved-model-run-template.js';
export { approvedModelRunTemplateSchema, withModel } from './approved-model-run-template.js';
export { ARTIFACTS_BUCKET_PLACEHOLDER, withArtifactsBucket } from './artifacts-bucket.js';
export type { AsyncEndpointInput, AsyncRunInput } from './async-run-input.js';
export { ASYNC_RUN_LIMITS, asyncRunInputSchema, asyncRunInputSchemaWith } from './async-run-input.js';
export type {
  AsyncBenchmarkFigures,
  AsyncEndpointPlan,
  AsyncEndpointState,
  AsyncGenerativeFigures,
  AsyncInferenceFailureCause,
  AsyncInferenceResult,
  AsyncInferenceStepEvents,
  AsyncInferenceStepEventsByName,
  AsyncInferenceStepKey,
  AsyncInferenceStepName,
  AsyncRunEstimate,
  AsyncRunOutcome,
  AsyncRunPlan,
  AsyncRunSummary,
  BatchCounts,
  BatchDescriptor,
  BatchItem,
  CleanUpAsyncRunEvent,
  Distribution,
  FailureReasonCount,
  GenerativeOutputFormat,
  InvokeAsyncInferenceEvent,
  ItemResult,
  ItemStatus,
  IterationOutput,
  LoadBatchEvent,
  NoInputCompletedCause,
  PrepareAsyncEndpointEvent,
  RecordBatchEvent,
  SummarizeAsyncRunEvent,
  ValidateAsyncRunEvent,
  ValidatedAsyncRun,
} from './async-state.js';
export {
  ASYNC_INFERENCE_STEPS,
  AsyncEndpointPhases,
  AsyncInferenceStates,
  AsyncRunOutcomes,
  BATCH_SIZE,
  ItemStatuses,
  MAX_FAILURE_REASONS,
  MAX_FAILURE_REASON_LENGTH,
} from './async-state.js';
export type { CaughtError } from './caught-error.js';
export { failureReasonOf } from './caught-error.js';
export type { CleanUpAccount, CleanUpResourceKind, LeftResource } from './clean-up-account.js';
export {
  CLEAN_UP_WAIT,
  CleanUpStatuses,
  cleanUpInCause,
  commandToFinish,
  leavesSomething,
  withCleanUpAccount,
} from './clean-up-account.js';
export { COMPILATION_TARGETS } from './compilation-targets.js';
export type { AutoCast, AutoCastType } from './compiler-options.js';
export {
  DEFAULT_AUTO_CAST,
  compilerOptionsParameter,
  isNeuronTarget,
  parseCompilerOptions,
} from './compiler-options.js';
export type { CompletedWork } from './completed-work.js';
export { completedInCause, withCompletedWork } from './completed-work.js';
export type { EndpointInstanceLimit } from './endpoint-limits.js';
export { MAX_ENDPOINT_INSTANCE_COUNT, endpointUsageQuotaName } from './endpoint-limits.js';
export type { InputIssue } from './errors.js';
export {
  BudgetExceededError,
  CleanUpIncompleteError,
  CompilationFailedError,
  EndpointFailedError,
  ErrorNames,
  InferenceIdInUseError,
  InvalidRunInputError,
  LoadTestAbortedError,
  NoServingImageError,
  QuotaExceededError,
  RequestRefusedError,
  ResourceBusyError,
  ResourceNotFoundError,
  RunRedrivenError,
  TransientServiceError,
  describeError,
  describeIssues,
  ranToEndWithoutResult,
} from './errors.js';
export type { ExecutionBudgets, PollSchedule } from './execution-limits.js';
export {
  COMPILATION_CONCURRENCY,
  DEFAULT_POLL_SCHEDULE,
  QUOTA_RETRY,
  TRANSIENT_RETRY,
  jsonBytes,
  nextPollSeconds,
} from './execution-limits.js';
export type { FailureStatus, RunEndStatus } from './execution-status-change.js';
export {
  EXECUTION_STATUS_CHANGE,
  FAILURE_STATUSES,
  LIVE_STATUSES,
  RUN_END_STATUSES,
  parseExecutionStatusChange,
} from './execution-status-change.js';
export { EXIT_CODES, exitCodeOfRun, proofStatusOf } from './exit-codes.js';
export { SUPPORT_FUNCTIONS } from './functions.js';
export type { HostedResourceNames } from './hosted-resources.js';
export type {
  ComponentRequest,
  InferenceComponentStatus,
  PerCopyRequirements,
  PlannedComponent,
} from './inference-components.js';
export { InferenceComponentStatuses, copyCountsOf } from './inference-components.js';
export { DEFAULT_JANITOR_MAX_AGE_HOURS, JANITOR_LIMITS, janitorBoundMinutes } from './janitor-settings.js';
export type { LatencyPercentilesMs } from './latency-percentiles.js';
export type { LatencySla, LatencySlaInput } from './latency-sla.js';
export { parseSla, slaSchema, streamingSlaIssues } from './latency-sla.js';
export type { LoadModel, LoadPlan, LoadPlanInput } from './load-plan.js';
export { MAX_ARRIVAL_RATE, MAX_CONCURRENCY, loadPlanSchema, parseLoadPlan } from './load-plan.js';
export type { LoadRound } from './load-round.js';
export { LOAD_WORKER_MEMORY_MB } from './load-worker-lambda.js';
export type {
  CandidatePrice,
  PlannedFactSource,
  PlannedPriceSource,
  PriceBookSource,
} from './market-sources.js';
export { PRICE_AGE_WARNING_DAYS } from './market-sources.js';
export type { LlmContainer } from './model-frameworks.js';
export { FRAMEWORKS, INPUT_DATA_TYPES, LLM_CONTAINERS, isLlmContainer } from './model-frameworks.js';
export type { ModelPackageRef } from './model-package.js';
export { APPROVED, MODEL_PACKAGE_GROUP_NAME, MODEL_PACKAGE_STATE_CHANGE } from './model-package.js';
export type { ModelSize } from './model-size.js';
export { BYTES_PER_DTYPE } from './model-size.js';
export {
  KEEP_TAG,
  PROJECT_TAG_VALUE,
  RESOURCE_NAME_PREFIX,
  TAG_KEYS,
  VARIANT_NAME,
  isValidRunId,
  resourceName,
  runTags,
  runToken,
} from './names.js';
export type { ObjectLocation } from './object-uri.js';
export {
  ArtifactPrefix,
  OBJECT_KEY_EXPECTED,
  RUN_INPUT_PREFIXES,
  SAGEMAKER_READ_PREFIXES,
  artifactPrefixProblem,
  normalisedObjectUri,
  objectKeyProblem,
  parseObjectUri,
  runPrefixKey,
  s3Uri,
} from './object-uri.js';
export { ApprovedModelRunMetrics, JanitorMetrics, NotificationMetrics } from './operation-metrics.js';
export type {
  AggregateLoadTestEvent,
  CandidateOutcome,
  CandidateVerdict,
  CheckEndpointEvent,
  CleanUpEvent,
  CleanUpResult,
  CleanUpStepEvent,
  CompilationState,
  DeleteCandidateEvent,
  DeletedResources,
  DeployCandidateEvent,
  DeploymentState,
  JudgeQualityEvent,
  LoadRoundStart,
  NoRecommendationCause,
  OptimizationStepEvents,
  OptimizationStepEventsByName,
  OptimizationStepKey,
  OptimizationStepName,
  PackageModelEvent,
  PackagedModel,
  PlannedCandidate,
  PlannedCompilation,
  PlannedOptimization,
  PlannedPayload,
  ProofOutcome,
  ProofRequest,
  ProofStatus,
  ProvePlan,
  QualityPassEvent,
  RampRequest,
  RampScalingEvent,
  RampStatus,
  RampTestPlan,
  RampVerdict,
  RecommendEvent,
  RecordAnswersEvent,
  RecordProofEvent,
  RecordRampEvent,
  RedriveAware,
  RunLoadWorkerEvent,
  RunOutcome,
  RunPlan,
  RunSummary,
  StartCompilationEvent,
  ValidateAndPlanEvent,
  VerdictCounts,
  WorkerOutcome,
} from './optimization-state.js';
export {
  CANDIDATE_VERDICTS,
  CandidateStatuses,
  CompilationOutcomes,
  NO_RECOMMENDATION_OUTCOMES,
  OPTIMIZATION_STEPS,
  OptimizationStates,
  PROOF_STATUSES,
  RAMP_STATUSES,
  RunOutcomes,
} from './optimization-state.js';
export { PRICE_TABLE_SOURCE } from './price-source.js';
export type { GenerationSettings, PlannedPromptSet, PromptBucketInput, PromptFormat } from './prompt-set.js';
export { PROMPT_SET_LIMITS, promptFormatOf } from './prompt-set.js';
export type {
  ClassifierRule,
  GenerativeRule,
  PlannedQuality,
  QualityExample,
  QualityFigures,
  QualityInput,
  QualityRule,
  QualityVerdict,
  QualityVerdictStatus,
  QualityVerdictSummary,
  RecordedAnswers,
  RecordedInput,
  StoredNumber,
  StoredTensor,
  TensorRule,
} from './quality.js';
export {
  QUALITY_DISTANCE_UNITS,
  QUALITY_LIMITS,
  QUALITY_VERDICTS,
  REFERENCE_ASKS,
  VERDICT_MAX_NOTES,
  VERDICT_NOTE_CHARS,
  VERDICT_TEXT_CHARS,
  qualityAllowsRecommendation,
  qualityIssues,
  referenceCandidateIndex,
} from './quality.js';
export type { Quantization } from './quantization.js';
export type { Recommendation, WithinNoise } from './recommendation.js';
export { isRecord, recordOf } from './records.js';
export { redactError, redactText, redactValue, redactedMessage } from './redaction.js';
export type { RoutingStrategy } from './routing-strategy.js';
export { RoutingStrategies } from './routing-strategy.js';
export type {
  ApiError,
  ApiReply,
  ExecutionStatus,
  ItemsProgress,
  PlannedRun,
  ReportLinks,
  ReportLocations,
  RunEvent,
  RunEvents,
  RunList,
  RunListItem,
  RunProgress,
  RunStatus,
  RunWorkflow,
  StartedRun,
  StoppedRun,
} from './run-api-contract.js';
export {
  ApiErrorCodes,
  ExecutionStatuses,
  REPORT_FILE_NAME_EXPECTED,
  RUN_EVENT_LIMITS,
  RUN_ID_EXPECTED,
  RUN_ID_PATTERN,
  RUN_INPUT_SCHEMAS,
  RUN_LIST_LIMITS,
  RUN_PLAN_PATH,
  RUN_RESOURCES,
  RUN_SUBRESOURCES,
  RunWorkflows,
  apiErrorSchema,
  apiFailure,
  describeInvalidRunId,
  isPlainFileName,
  isTerminalStatus,
  plannedRunSchema,
  reportLinksSchema,
  runEventsSchema,
  runListSchema,
  runStatusSchema,
  startedRunSchema,
  stoppedRunSchema,
} from './run-api-contract.js';
export type {
  BaselineComparison,
  BaselineRun,
  CandidateChange,
  CandidateComparison,
  ComparisonAttribute,
  FigureBasis,
  FigureComparison,
  FigureName,
  FigureRange,
  FigureVerdict,
  MeasuredFigure,
  RunComparison,
  RunSide,
  RunVerdict,
  SummaryComparison,
} from './run-comparison.js';
export { COMPARISON_ATTRIBUTES } from './run-comparison.js';
export { ASYNC_RUN_INPUT_DESCRIPTIONS, RUN_INPUT_DESCRIPTIONS } from './run-input-descriptions.js';
export type {
  CandidateInput,
  FieldIssue,
  FrameworkFields,
  HubModel,
  RunInput,
  RunInputDocument,
  RunInputFields,
} from './run-input.js';
export {
  COMPILATION_TARGET_EXPECTED,
  INVOKE_ENDPOINT_MAX_BODY_BYTES,
  RUN_LIMITS,
  objectiveOf,
  payloadField,
  runInputSchema,
  runInputSchemaWith,
  runPayloads,
} from './run-input.js';
export {
  ASYNC_RUN_TIMEOUT_HOURS,
  LOAD_WORKER_MEASURING_SECONDS,
  LOAD_WORKER_TIMEOUT_SECONDS,
  OPTIMIZATION_RUN_TIMEOUT_HOURS,
  OPTIMIZATION_RUN_TIMEOUT_SECONDS,
} from './run-timeouts.js';
export type {
  PutScalingPolicyRequest,
  RealtimeScalingRequests,
  RegisterScalableTargetRequest,
} from './scaling-requests.js';
export {
  INVOCATIONS_PER_INSTANCE_METRIC,
  SAGEMAKER_NAMESPACE,
  VARIANT_INSTANCE_COUNT_DIMENSION,
} from './scaling-requests.js';
export { seededRandom } from './seeded-random.js';
export {
  DEFAULT_HEADROOM,
  DEFAULT_MIN_INSTANCES,
  DEFAULT_RAMP_SECONDS,
  DEFAULT_SCALE_IN_COOLDOWN_SECONDS,
  DEFAULT_SCALE_OUT_COOLDOWN_SECONDS,
  RAMP_SECONDS_TO_SCALE_ON_AWS,
} from './serving-input.js';
export type {
  Shortlist,
  ShortlistExclusion,
  ShortlistKind,
  ShortlistRequest,
  ShortlistedType,
} from './shortlist.js';
export { STEP_FUNCTIONS_QUOTAS } from './step-functions-quotas.js';
export type { StreamFormat } from './stream-format.js';
export { LMI_OUTPUT_FORMATTER, containerStreamFormat } from './stream-format.js';
export { TOKEN_TABLE_KEYS } from './task-token-table.js';
export {
  describeGiven,
  formatFieldPath,
  inputBoundIssues,
  jsonTextBoundIssues,
  parseOrThrow,
  toInputIssues,
} from './validation.js';
