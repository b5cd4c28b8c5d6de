import {
  findInstance,
  type InstanceSpec,
  ec2TwinOf,
  type InstanceFactsReader,
  specWithEc2Facts,
} from '../catalog/index.js';
import { describeError } from '../contracts/index.js';
import type { PlannedFactSource } from '../contracts/index.js';
import type { Logger } from '../ports/index.js';
import { type LiveReadRetry, withLiveReadRetry } from './live-read.js';

/**
 * The candidates' instance facts as the plan reads them. On AWS (a region and a reader): the table's
 * spec of each type with EC2's numbers for its EC2 twin (DescribeInstanceTypes in the run's region:
 * vCPUs, memory, GPUs and their memory, Neuron devices and cores); a type EC2 does not describe
 * there keeps the table's facts, and so does every type when the read fails (after retries while
 * throttled), with the reason in the plan. Offline: the table.
 */

export interface FactSourceDeps {
  readonly region?: string;
  readonly reader?: InstanceFactsReader;
  readonly retry?: LiveReadRetry;
  readonly logger: Logger;
}

export interface FactBook {
  readonly summary: PlannedFactSource;
  readonly warnings: readonly string[];
  specOf(instanceType: string): InstanceSpec | undefined;
}

const TABLE_BOOK: FactBook = { summary: { source: 'instance-table' }, warnings: [], specOf: findInstance };

export async function readFactBook(
  instanceTypes: readonly string[],
  deps: FactSourceDeps,
): Promise<FactBook> {
  const { region, reader } = deps;
  const twins = new Map(
    [...new Set(instanceTypes)].flatMap((type) => {
      const twin = ec2TwinOf(type);
      return twin === undefined || findInstance(type) === undefined ? [] : [[twin, type] as const];
    }),
  );
  if (region === undefined || reader === undefined || twins.size === 0) return TABLE_BOOK;
  try {
    const described = await withLiveReadRetry(
      () => reader.describeInstanceTypes([...twins.keys()]),
      deps.retry,
    );
    const live = new Map<string, InstanceSpec>();
    for (const facts of described) {
      const type = twins.get(facts.ec2Type);
      const spec = type === undefined ? undefined : findInstance(type);
      if (type !== undefined && spec !== undefined) live.set(type, specWithEc2Facts(spec, facts));
    }
    return {
      summary: { source: 'ec2-describe-instance-types', region, readTypes: [...live.keys()].sort() },
      warnings: [],
      specOf: (instanceType) => live.get(instanceType) ?? findInstance(instanceType),
    };
  } catch (error) {
    deps.logger.warn('Instance facts could not be read from EC2: the plan uses the instance table', {
      region,
      error: describeError(error),
    });
    const fallbackReason = `EC2 DescribeInstanceTypes failed: ${describeError(error)}`;
    return {
      summary: { source: 'instance-table', region, fallbackReason },
      warnings: [`instance facts: ${fallbackReason}; the plan uses the instance table`],
      specOf: findInstance,
    };
  }
}
