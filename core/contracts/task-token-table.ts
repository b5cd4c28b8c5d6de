/**
 * The async workflow's task-token table, as the stack creates it and the DynamoDB store reads and
 * writes it: partition key `inferenceId` (string), TTL attribute `expiresAt` (epoch seconds). A
 * table rather than SageMaker's `CustomAttributes`: a task token can be 2,048 characters (Step
 * Functions SendTaskSuccess reference), `CustomAttributes` at most 1,024.
 */
export const TOKEN_TABLE_KEYS = { partitionKey: 'inferenceId', ttl: 'expiresAt' } as const;
