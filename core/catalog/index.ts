/**
 * What other rooms import from core/catalog/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export { buildInstanceTable, renderInstanceTable } from './build-instance-table.js';
export type { Framework } from './image-table.js';
export { IMAGE_TABLE } from './image-table.js';
export {
  baseFrameworkOf,
  huggingfaceVersionProblem,
  resolveServingImage,
  servingPlatformOf,
} from './images.js';
export type { InstanceFactsFile } from './instance-facts.js';
export { NEO_TARGET_FAMILIES_NOT_PLANNED, familyOf } from './instance-facts.js';
export type { InstanceSpec } from './instances.js';
export {
  LAMBDA_ARM64_USD_PER_GB_SECOND,
  SERVERLESS_USD_PER_GB_SECOND,
  findInstance,
  knownInstanceTypes,
  neoTargetOf,
} from './instances.js';
export type { LlmContainerSpec, LlmSettingsSpec } from './llm-containers.js';
export {
  LLM_CONTAINER_SPECS,
  LMI_BF16_UNSUPPORTED,
  llmModelEnvironment,
  llmPlatforms,
} from './llm-containers.js';
export type { Ec2InstanceFacts, HostingPriceList, InstanceFactsReader } from './market.js';
export { ec2TwinOf, specWithEc2Facts } from './market.js';
export { compilationSupportIssues, compilationSupportWarnings, takesInputDataType } from './neo-support.js';
export {
  PRICE_TABLE_SOURCES,
  RECORDED_PRICE_FALLBACK_REGION,
  RECORDED_PRICE_REGIONS,
  recordedPriceOf,
} from './price-table.js';
