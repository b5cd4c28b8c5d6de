import type { InstanceSpec } from './instances.js';

/**
 * The ports through which the planner reads the market live on AWS (lambdas/adapters: the Price
 * List API and EC2), and what it makes of their answers. The core stays cloud-agnostic: the ports
 * speak in `ml.` instance types and plain numbers.
 */

/** On-demand hosting prices of one region, read from a price list. */
export interface HostingPriceList {
  /**
   * SageMaker real-time hosting, on-demand USD per instance-hour, by `ml.` instance type, for
   * `region`. Types the list does not price in that region are absent. Throws on a failed read
   * (a `TransientServiceError` when the service throttled or failed on its side).
   */
  hostingPrices(region: string): Promise<Readonly<Record<string, number>>>;
}

/** One EC2 instance type as EC2 describes it (DescribeInstanceTypes `InstanceTypeInfo`). */
export interface Ec2InstanceFacts {
  /** The EC2 name, e.g. `g5.xlarge`. */
  readonly ec2Type: string;
  readonly vcpus?: number;
  readonly memoryMiB?: number;
  /** NVIDIA/AMD/Habana GPUs: how many, and their memory together. */
  readonly gpus?: { readonly count: number; readonly totalMemoryMiB?: number };
  /** Inferentia/Trainium devices: how many, NeuronCores per device, and their memory together. */
  readonly neuron?: {
    readonly devices: number;
    readonly coresPerDevice?: number;
    readonly totalMemoryMiB?: number;
  };
}

/** EC2's description of instance types in the region the reader was built for. */
export interface InstanceFactsReader {
  /**
   * The facts of the given EC2 types that EC2 knows in the region; a type it does not know is
   * absent (not an error). Throws on a failed read (`TransientServiceError` when throttled).
   */
  describeInstanceTypes(ec2Types: readonly string[]): Promise<readonly Ec2InstanceFacts[]>;
}

/** `ml.g5.xlarge` → `g5.xlarge`: the EC2 instance type a SageMaker ML instance type runs on. */
export function ec2TwinOf(instanceType: string): string | undefined {
  const match = /^ml\.([a-z0-9-]+\.[a-z0-9]+)$/.exec(instanceType);
  return match?.[1];
}

const MIB_PER_GIB = 1024;

function gib(mib: number): number {
  return Math.round((mib / MIB_PER_GIB) * 100) / 100;
}

/**
 * The table's spec with EC2's numbers put in: vCPUs, memory, accelerator devices (GPUs, or
 * NeuronCores on Inferentia/Trainium, the tensor-parallel unit) and accelerator memory. What EC2
 * does not give keeps the table's value; the accelerator kind, CUDA and container facts stay the
 * table's (EC2 names a GPU model, not the project's accelerator vocabulary). A fact EC2 gave is no
 * longer unknown.
 */
export function specWithEc2Facts(spec: InstanceSpec, facts: Ec2InstanceFacts): InstanceSpec {
  const live: Partial<Record<'vcpus' | 'memoryGiB' | 'acceleratorCount' | 'acceleratorMemoryGiB', number>> =
    {};
  const known = new Set<string>();
  if (facts.vcpus !== undefined) {
    live.vcpus = facts.vcpus;
    known.add('vcpus');
  }
  if (facts.memoryMiB !== undefined) {
    live.memoryGiB = gib(facts.memoryMiB);
    known.add('memoryGiB');
  }
  if (facts.neuron !== undefined) {
    if (facts.neuron.coresPerDevice !== undefined) {
      live.acceleratorCount = facts.neuron.devices * facts.neuron.coresPerDevice;
      known.add('neuronCores');
    }
    known.add('acceleratorDevices');
    if (facts.neuron.totalMemoryMiB !== undefined) {
      live.acceleratorMemoryGiB = gib(facts.neuron.totalMemoryMiB);
      known.add('acceleratorMemoryGiB');
    }
  } else if (facts.gpus !== undefined) {
    live.acceleratorCount = facts.gpus.count;
    known.add('acceleratorDevices');
    if (facts.gpus.totalMemoryMiB !== undefined) {
      live.acceleratorMemoryGiB = gib(facts.gpus.totalMemoryMiB);
      known.add('acceleratorMemoryGiB');
    }
  }
  return {
    ...spec,
    ...live,
    unknownFacts: spec.unknownFacts.filter((fact) => !known.has(fact)),
  };
}
