import { type EC2Client, EC2ServiceException } from '@aws-sdk/client-ec2';
import { findInstance, knownInstanceTypes } from '../../../core/catalog/instances.js';
import { ec2TwinOf } from '../../../core/catalog/market.js';
import { servingPlatformOf } from '../../../core/catalog/images.js';
import { type AwsRecorder, installFake, serviceError } from './recorder.js';

type Input = Record<string, unknown>;

/**
 * EC2's DescribeInstanceTypes (EC2 API reference,
 * https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypes.html):
 *
 * - the `instance-type` filter keeps the types named in its values (`*` matches any characters);
 *   a name EC2 does not offer is simply not answered;
 * - pages of `MaxResults` (5–100: below or above is `InvalidParameterValue`) and an opaque
 *   `NextToken`;
 * - a throttled call is `RequestLimitExceeded` (EC2's throttling error, "Request throttling for the
 *   Amazon EC2 API", https://docs.aws.amazon.com/ec2/latest/devguide/ec2-api-throttling.html).
 *
 * Each type is described from the instance table, in EC2's shape (VCpuInfo, MemoryInfo, GpuInfo,
 * NeuronInfo).
 */
export class FakeEc2InstanceTypes {
  private readonly types = new Map<string, Record<string, unknown>>();
  private readonly tokens = new Map<string, { readonly query: string; readonly offset: number }>();
  private throttled = 0;

  constructor() {
    for (const instanceType of knownInstanceTypes()) {
      const twin = ec2TwinOf(instanceType);
      const info = twin === undefined ? undefined : instanceTypeInfo(twin, instanceType);
      if (twin !== undefined && info !== undefined) this.types.set(twin, info);
    }
  }

  /** The next `count` calls are throttled. */
  throttleNext(count: number): void {
    this.throttled = count;
  }

  install(client: EC2Client, recorder: AwsRecorder): void {
    installFake({
      client,
      clientName: 'EC2Client',
      recorder,
      validationError: (message) => serviceError(EC2ServiceException, 'InvalidParameterValue', message),
      handle: (command, input) => this.handle(command, input),
    });
  }

  private handle(command: string, input: Input): unknown {
    if (command !== 'DescribeInstanceTypesCommand') {
      throw new Error(`FakeEc2InstanceTypes: ${command} is not faked; add it`);
    }
    if (this.throttled > 0) {
      this.throttled -= 1;
      throw serviceError(EC2ServiceException, 'RequestLimitExceeded', 'Request limit exceeded.', 503);
    }
    const size = typeof input.MaxResults === 'number' ? input.MaxResults : 100;
    if (size < 5 || size > 100) {
      throw serviceError(
        EC2ServiceException,
        'InvalidParameterValue',
        `Value (${size}) for parameter maxResults is invalid. Must be between 5 and 100.`,
      );
    }
    const filters = (input.Filters ?? []) as { Name: string; Values: string[] }[];
    const named = filters.find((filter) => filter.Name === 'instance-type')?.Values;
    const matching = [...this.types.entries()]
      .filter(([type]) => named === undefined || named.some((pattern) => globMatches(pattern, type)))
      .map(([, info]) => info);
    const query = JSON.stringify(filters);
    let offset = 0;
    if (typeof input.NextToken === 'string') {
      const token = this.tokens.get(input.NextToken);
      if (token?.query !== query) {
        throw serviceError(EC2ServiceException, 'InvalidParameterValue', 'The nextToken is not valid');
      }
      offset = token.offset;
    }
    const nextToken = offset + size < matching.length ? `token-${this.tokens.size + 1}` : undefined;
    if (nextToken !== undefined) this.tokens.set(nextToken, { query, offset: offset + size });
    return {
      InstanceTypes: matching.slice(offset, offset + size),
      ...(nextToken === undefined ? {} : { NextToken: nextToken }),
    };
  }
}

function globMatches(pattern: string, value: string): boolean {
  const regex = new RegExp(`^${pattern.split('*').map(escape).join('.*')}$`);
  return regex.test(value);
}

function escape(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

const MIB_PER_GIB = 1024;

function instanceTypeInfo(ec2Type: string, instanceType: string): Record<string, unknown> | undefined {
  const spec = findInstance(instanceType);
  if (spec?.vcpus === undefined || spec.memoryGiB === undefined) return undefined;
  const devices = spec.acceleratorCount ?? 0;
  const memoryMiB = Math.round((spec.acceleratorMemoryGiB ?? 0) * MIB_PER_GIB);
  // Inferentia and Trainium of every generation (ml.trn2 included): EC2 describes them as Neuron devices.
  const platform = servingPlatformOf(instanceType);
  const neuron = platform === 'inf1' || platform === 'neuronx';
  const gpu = !neuron && spec.accelerator !== 'none' && spec.accelerator !== 'unknown' && devices > 0;
  return {
    InstanceType: ec2Type,
    VCpuInfo: { DefaultVCpus: spec.vcpus },
    MemoryInfo: { SizeInMiB: Math.round(spec.memoryGiB * MIB_PER_GIB) },
    ...(gpu
      ? {
          GpuInfo: {
            Gpus: [{ Count: devices, MemoryInfo: { SizeInMiB: Math.round(memoryMiB / devices) } }],
            TotalGpuMemoryInMiB: memoryMiB,
          },
        }
      : {}),
    ...(neuron && devices > 0
      ? {
          NeuronInfo: {
            // The planner's count of an Inferentia/Trainium type is its NeuronCores: one device per two cores here.
            NeuronDevices: [{ Count: Math.max(1, devices / 2), CoreInfo: { Count: 2 } }],
            TotalNeuronDeviceMemoryInMiB: memoryMiB,
          },
        }
      : {}),
  };
}
