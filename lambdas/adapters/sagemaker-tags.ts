import type { Tag } from '@aws-sdk/client-sagemaker';
import { sageMakerTags } from '../../core/deployment/index.js';

/** The ports' `{ key: value }` tags as SageMaker's `[{ Key, Value }]`, in a stable order. */
export function toSageMakerTags(tags: Readonly<Record<string, string>>): Tag[] {
  return sageMakerTags(tags);
}
