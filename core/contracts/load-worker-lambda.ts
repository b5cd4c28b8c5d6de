/**
 * The load worker Lambda's memory: the stack sets it (infra/constructs/optimization-steps.ts), and
 * the planner reads it for the load generator's cost and a worker's request ceiling. Lambda gives
 * CPU in proportion to memory: "At 1,769 MB, a function has the equivalent of one vCPU (one
 * vCPU-second of credits per second)" (AWS Lambda Developer Guide, "Configure Lambda function
 * memory", https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html).
 */
export const LOAD_WORKER_MEMORY_MB = 2048;
