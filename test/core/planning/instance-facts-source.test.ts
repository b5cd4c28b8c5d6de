import { describe, expect, it } from '@jest/globals';
import { findInstance } from '../../../core/catalog/instances.js';
import { type Ec2InstanceFacts, type InstanceFactsReader } from '../../../core/catalog/market.js';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import { readFactBook } from '../../../core/planning/instance-facts-source.js';
import { silentLogger } from '../../support/memory-object-store.js';

class RecordingReader implements InstanceFactsReader {
  readonly asked: (readonly string[])[] = [];
  constructor(
    private readonly facts: readonly Ec2InstanceFacts[],
    private readonly failures: Error[] = [],
  ) {}

  describeInstanceTypes(ec2Types: readonly string[]): Promise<readonly Ec2InstanceFacts[]> {
    this.asked.push(ec2Types);
    const failure = this.failures.shift();
    return failure === undefined
      ? Promise.resolve(this.facts.filter((facts) => ec2Types.includes(facts.ec2Type)))
      : Promise.reject(failure);
  }
}

const G6E_2XLARGE: Ec2InstanceFacts = {
  ec2Type: 'g6e.2xlarge',
  vcpus: 8,
  memoryMiB: 65_536,
  gpus: { count: 1, totalMemoryMiB: 45_776 },
};
const INF2_XLARGE: Ec2InstanceFacts = {
  ec2Type: 'inf2.xlarge',
  vcpus: 4,
  memoryMiB: 16_384,
  neuron: { devices: 1, coresPerDevice: 2, totalMemoryMiB: 32_768 },
};

describe('readFactBook', () => {
  it('keeps the table offline', async () => {
    // Act
    const book = await readFactBook(['ml.g6e.2xlarge'], { logger: silentLogger });

    // Assert
    expect(book.summary).toEqual({ source: 'instance-table' });
    expect(book.specOf('ml.g6e.2xlarge')).toBe(findInstance('ml.g6e.2xlarge'));
  });

  it('puts EC2’s numbers for each type’s EC2 twin into the table’s spec', async () => {
    // Prepare
    const reader = new RecordingReader([G6E_2XLARGE, INF2_XLARGE]);

    // Act
    const book = await readFactBook(['ml.g6e.2xlarge', 'ml.inf2.xlarge', 'ml.g6e.2xlarge'], {
      region: 'us-west-2',
      reader,
      logger: silentLogger,
    });

    // Assert
    expect(reader.asked).toEqual([['g6e.2xlarge', 'inf2.xlarge']]);
    expect(book.summary).toEqual({
      source: 'ec2-describe-instance-types',
      region: 'us-west-2',
      readTypes: ['ml.g6e.2xlarge', 'ml.inf2.xlarge'],
    });
    expect(book.specOf('ml.g6e.2xlarge')).toMatchObject({
      vcpus: 8,
      memoryGiB: 64,
      acceleratorCount: 1,
      acceleratorMemoryGiB: 44.7,
      accelerator: findInstance('ml.g6e.2xlarge')?.accelerator,
    });
    // NeuronCores are the tensor-parallel unit on Inferentia: 1 device × 2 cores.
    expect(book.specOf('ml.inf2.xlarge')).toMatchObject({ acceleratorCount: 2, acceleratorMemoryGiB: 32 });
    expect(book.specOf('ml.inf2.xlarge')?.unknownFacts).toEqual([]);
  });

  it('keeps the table’s facts for a type EC2 does not describe in the region', async () => {
    // Prepare
    const reader = new RecordingReader([G6E_2XLARGE]);

    // Act
    const book = await readFactBook(['ml.g6e.2xlarge', 'ml.c5.xlarge'], {
      region: 'us-west-2',
      reader,
      logger: silentLogger,
    });

    // Assert
    expect(book.summary.readTypes).toEqual(['ml.g6e.2xlarge']);
    expect(book.specOf('ml.c5.xlarge')).toBe(findInstance('ml.c5.xlarge'));
  });

  it('fails when the EC2 read stays throttled: retries, then keeps the table with a warning', async () => {
    // Prepare
    const throttled = (): Error => new TransientServiceError('DescribeInstanceTypes throttled');
    const reader = new RecordingReader([G6E_2XLARGE], [throttled(), throttled()]);
    const pauses: number[] = [];

    // Act
    const book = await readFactBook(['ml.g6e.2xlarge'], {
      region: 'us-west-2',
      reader,
      retry: {
        attempts: 2,
        firstDelayMs: 50,
        sleep: (ms) => {
          pauses.push(ms);
          return Promise.resolve();
        },
      },
      logger: silentLogger,
    });

    // Assert
    expect(reader.asked).toHaveLength(2);
    expect(pauses).toEqual([50]);
    expect(book.summary).toEqual({
      source: 'instance-table',
      region: 'us-west-2',
      fallbackReason:
        'EC2 DescribeInstanceTypes failed: TransientServiceError: DescribeInstanceTypes throttled',
    });
    expect(book.warnings).toEqual([
      'instance facts: EC2 DescribeInstanceTypes failed: TransientServiceError: DescribeInstanceTypes throttled; the plan uses the instance table',
    ]);
  });
});
