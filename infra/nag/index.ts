/**
 * What other rooms import from infra/nag/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export {
  acknowledgeGuardRule,
  acknowledgeNagRule,
  acknowledgeWildcardAction,
  acknowledgeWildcardResource,
} from './acknowledge.js';
export { KMS_CREATE_GRANT_REASON, KMS_CREATE_GRANT_RULE } from './guard-rules.js';
export { GuardValidator } from './guard.js';
