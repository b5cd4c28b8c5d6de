import type { Tag } from '@aws-sdk/client-sagemaker';

/** The ports' `{ key: value }` tags as SageMaker's `[{ Key, Value }]`, in a stable order. */
export function toSageMakerTags(tags: Readonly<Record<string, string>>): Tag[] {
  return Object.entries(tags)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([Key, Value]) => ({ Key, Value }));
}
