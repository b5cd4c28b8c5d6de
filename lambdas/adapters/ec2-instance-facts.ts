import { DescribeInstanceTypesCommand, type EC2Client, type InstanceTypeInfo } from '@aws-sdk/client-ec2';
import type { Ec2InstanceFacts, InstanceFactsReader } from '../../core/catalog/index.js';
import { TransientServiceError } from '../../core/contracts/index.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';

/** DescribeInstanceTypes' MaxResults is 5–100 (EC2 API reference, DescribeInstanceTypes). */
const PAGE_SIZE = 100;

/**
 * EC2 DescribeInstanceTypes for the EC2 twins of the candidates' `ml.` types, in the Lambda's
 * region (EC2 API reference,
 * https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypes.html). The types
 * go in the `instance-type` filter rather than `InstanceTypes`: a name EC2 does not know in the
 * region is then simply not answered, where `InstanceTypes` refuses the whole request. Pages by
 * `NextToken`. Throttling (`RequestLimitExceeded`) and server faults become TransientServiceError.
 */
export class Ec2InstanceFactsReader implements InstanceFactsReader {
  constructor(private readonly client: EC2Client) {}

  async describeInstanceTypes(ec2Types: readonly string[]): Promise<readonly Ec2InstanceFacts[]> {
    if (ec2Types.length === 0) return [];
    const facts: Ec2InstanceFacts[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.page(ec2Types, nextToken);
      for (const info of page.InstanceTypes ?? []) {
        const described = factsOf(info);
        if (described !== undefined) facts.push(described);
      }
      nextToken = page.NextToken;
    } while (nextToken !== undefined);
    return facts;
  }

  private async page(ec2Types: readonly string[], nextToken: string | undefined) {
    try {
      return await this.client.send(
        new DescribeInstanceTypesCommand({
          Filters: [{ Name: 'instance-type', Values: [...ec2Types] }],
          MaxResults: PAGE_SIZE,
          ...(nextToken === undefined ? {} : { NextToken: nextToken }),
        }),
      );
    } catch (error) {
      if (isTransient(error)) {
        throw new TransientServiceError(
          `EC2 DescribeInstanceTypes: ${errorName(error) ?? 'error'}: ${errorMessage(error)}`,
        );
      }
      throw error;
    }
  }
}

/** EC2's `InstanceTypeInfo` in the planner's words: vCPUs, memory, GPUs, Neuron devices. */
export function factsOf(info: InstanceTypeInfo): Ec2InstanceFacts | undefined {
  const ec2Type = info.InstanceType;
  if (ec2Type === undefined) return undefined;
  const gpuCount = (info.GpuInfo?.Gpus ?? []).reduce((sum, gpu) => sum + (gpu.Count ?? 0), 0);
  const neuronDevices = info.NeuronInfo?.NeuronDevices ?? [];
  const deviceCount = neuronDevices.reduce((sum, device) => sum + (device.Count ?? 0), 0);
  const coresPerDevice = neuronDevices[0]?.CoreInfo?.Count;
  const gpuMemory = info.GpuInfo?.TotalGpuMemoryInMiB;
  const neuronMemory = info.NeuronInfo?.TotalNeuronDeviceMemoryInMiB;
  return {
    ec2Type,
    ...(info.VCpuInfo?.DefaultVCpus === undefined ? {} : { vcpus: info.VCpuInfo.DefaultVCpus }),
    ...(info.MemoryInfo?.SizeInMiB === undefined ? {} : { memoryMiB: info.MemoryInfo.SizeInMiB }),
    ...(gpuCount === 0
      ? {}
      : { gpus: { count: gpuCount, ...(gpuMemory === undefined ? {} : { totalMemoryMiB: gpuMemory }) } }),
    ...(deviceCount === 0
      ? {}
      : {
          neuron: {
            devices: deviceCount,
            ...(coresPerDevice === undefined ? {} : { coresPerDevice }),
            ...(neuronMemory === undefined ? {} : { totalMemoryMiB: neuronMemory }),
          },
        }),
  };
}
