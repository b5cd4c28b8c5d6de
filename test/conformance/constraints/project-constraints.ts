import type { ConstraintTable } from './constraint-types.js';

/**
 * Constraints a service documents but its Smithy model does not declare. Checked in addition to
 * the generated table (`service-constraints.generated.ts`), under the same Smithy member ids; each
 * entry cites the page it comes from.
 */
export const PROJECT_CONSTRAINTS: ConstraintTable = {
  // "The aws: prefix is reserved for AWS use" (Tagging AWS resources, "Tag naming limits and
  // requirements"); SageMaker's Tag pattern alone would accept it.
  'com.amazonaws.sagemaker#Tag$Key': {
    pattern: '^(?![aA][wW][sS]:)',
    source: 'https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html',
  },
};
