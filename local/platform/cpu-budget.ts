/**
 * Instance emulation: an endpoint's instance type becomes the model server's CPU budget on this
 * machine. The budget is the instance's vCPUs (× instance count for a variant run as one server;
 * the local model host plans each instance of a variant of several instances on its own: one
 * server per instance), capped to the cores this machine has; it is spent as ONNX Runtime intra-op
 * threads, shared between the server's workers. A container environment that sets the threads
 * itself is honoured as it is, exactly as SageMaker would pass it to the container.
 */
import { findInstance } from '../../core/catalog/index.js';
import type { ProductionVariantSpec } from '../../core/ports/index.js';
import { MODEL_SERVER_ENV, OMP_NUM_THREADS_ENV } from '../model-server/index.js';

/**
 * SageMaker Serverless Inference does not publish a vCPU-per-memory ratio; AWS Lambda, which it
 * resembles, documents one vCPU per 1,769 MB
 * (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html). Local mode uses that
 * ratio as an approximation and says so in a warning.
 */
const SERVERLESS_MB_PER_VCPU = 1769;

export interface ServerCpuPlan {
  /** The vCPUs the variant would have on SageMaker; undefined for an instance type we do not know. */
  readonly requestedVcpus: number | undefined;
  /** Threads the server may use on this machine: the vCPUs, capped to the cores available. */
  readonly budget: number;
  readonly capped: boolean;
  readonly workers: number;
  readonly intraOpThreads: number;
  /** Whether the threads came from the container environment or from the budget. */
  readonly threadsFrom: 'environment' | 'budget';
  /** Variables to add to the container environment (never overriding the candidate's own). */
  readonly addedEnvironment: Readonly<Record<string, string>>;
  /** Plain-language caveats, for the logs. */
  readonly warnings: readonly string[];
}

export interface ServerCpuPlanInput {
  readonly variant: ProductionVariantSpec;
  readonly environment: Readonly<Record<string, string>>;
  readonly availableCpus: number;
}

export function planServerCpu(input: ServerCpuPlanInput): ServerCpuPlan {
  const { variant, environment, availableCpus } = input;
  const warnings: string[] = [];
  const requestedVcpus = vcpusOf(variant, warnings);
  const wanted = requestedVcpus ?? availableCpus;
  const budget = Math.max(1, Math.min(wanted, availableCpus));
  const capped = wanted > availableCpus;
  if (capped) {
    warnings.push(
      `${describeVariant(variant)} has ${wanted} vCPUs; this machine has ${availableCpus} cores, so its model server gets ${budget} threads (figures understate the instance)`,
    );
  }
  // An invalid value is left for the model server to refuse: the endpoint then fails with its reason.
  const workers = positiveInteger(environment[MODEL_SERVER_ENV.workers]) ?? 1;
  const configuredThreads =
    positiveInteger(environment[MODEL_SERVER_ENV.intraOpThreads]) ??
    positiveInteger(environment[OMP_NUM_THREADS_ENV]);
  if (configuredThreads !== undefined) {
    return {
      requestedVcpus,
      budget,
      capped,
      workers,
      intraOpThreads: configuredThreads,
      threadsFrom: 'environment',
      addedEnvironment: {},
      warnings,
    };
  }
  const intraOpThreads = Math.max(1, Math.floor(budget / workers));
  if (workers > budget) {
    warnings.push(
      `${workers} workers on a budget of ${budget} threads: each worker gets 1 thread, ${workers} in all`,
    );
  }
  return {
    requestedVcpus,
    budget,
    capped,
    workers,
    intraOpThreads,
    threadsFrom: 'budget',
    addedEnvironment: { [MODEL_SERVER_ENV.intraOpThreads]: String(intraOpThreads) },
    warnings,
  };
}

function vcpusOf(variant: ProductionVariantSpec, warnings: string[]): number | undefined {
  if (variant.serverless !== undefined) {
    const vcpus = Math.max(1, Math.ceil(variant.serverless.memorySizeMb / SERVERLESS_MB_PER_VCPU));
    warnings.push(
      `serverless ${variant.serverless.memorySizeMb} MB is emulated with ${vcpus} vCPU(s) (Lambda's 1 vCPU per ${SERVERLESS_MB_PER_VCPU} MB; SageMaker does not publish its ratio)`,
    );
    return vcpus;
  }
  if (variant.instanceType === undefined) return undefined;
  const instance = findInstance(variant.instanceType);
  if (instance === undefined) {
    warnings.push(`${variant.instanceType} is not in the instance table: its server gets every core here`);
    return undefined;
  }
  if (instance.vcpus === undefined) {
    warnings.push(
      `the instance table does not know the vCPUs of ${variant.instanceType}: its server gets every core here`,
    );
    return undefined;
  }
  return instance.vcpus * Math.max(1, variant.initialInstanceCount ?? 1);
}

function describeVariant(variant: ProductionVariantSpec): string {
  if (variant.serverless !== undefined) return `serverless ${variant.serverless.memorySizeMb} MB`;
  const count = variant.initialInstanceCount ?? 1;
  return count > 1 ? `${count} × ${variant.instanceType ?? '?'}` : (variant.instanceType ?? 'the variant');
}

function positiveInteger(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return undefined;
  const value = Number(raw);
  return Number.isSafeInteger(value) && value >= 1 ? value : undefined;
}
