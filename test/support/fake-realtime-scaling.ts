import type { InstanceCountPoint } from '../../core/serving/ramp.js';
import type {
  EndpointInstanceSeriesReader,
  RealtimeScalingApplier,
  ScalingRegistry,
} from '../../core/ports/index.js';
import { checkRealtimeScalingRequests } from '../../local/platform/realtime-scaling-requests.js';
import type { RealtimeScalingRequests } from '../../core/contracts/scaling-requests.js';

/**
 * Application Auto Scaling for the ramp test, in memory: requests checked as the service checks
 * them (local/platform/realtime-scaling-requests.ts: namespace, dimension, ResourceId, capacities,
 * the predefined metric), registrations kept until deregistered, and the instance counts a test
 * scripts relative to the window asked for (the scale-outs "happened" during the ramp).
 */
export class FakeRealtimeScaling
  implements RealtimeScalingApplier, ScalingRegistry, EndpointInstanceSeriesReader
{
  readonly calls: string[] = [];
  readonly registered = new Set<string>();
  /** Fails the next deregistration of each listed resource once (then succeeds). */
  readonly failDeregisterOnce = new Set<string>();

  constructor(private readonly scripted: (fromEpochMs: number) => readonly InstanceCountPoint[] = () => []) {}

  applyRealtimeScaling(requests: RealtimeScalingRequests): Promise<void> {
    const checked = checkRealtimeScalingRequests(requests);
    const target = requests.registerScalableTarget;
    const policy = requests.putScalingPolicy;
    this.calls.push(
      `RegisterScalableTarget ${target.ResourceId} ${target.MinCapacity}-${target.MaxCapacity}`,
      `PutScalingPolicy ${policy.PolicyName} ${policy.TargetTrackingScalingPolicyConfiguration.TargetValue}`,
    );
    this.registered.add(`endpoint/${checked.endpointName}/variant/${checked.variantName}`);
    return Promise.resolve();
  }

  deregisterEndpointVariant(endpointName: string, variantName: string): Promise<boolean> {
    const resourceId = `endpoint/${endpointName}/variant/${variantName}`;
    this.calls.push(`DeregisterScalableTarget ${resourceId}`);
    if (this.failDeregisterOnce.delete(resourceId)) {
      return Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    }
    return Promise.resolve(this.registered.delete(resourceId));
  }

  configureAsyncScaling(): Promise<void> {
    return Promise.reject(new Error('the optimization workflow configures no async scaling'));
  }

  instanceSeries(endpointName: string, fromEpochMs: number): Promise<readonly InstanceCountPoint[]> {
    this.calls.push(`DescribeScalingActivities endpoint/${endpointName}/variant/AllTraffic`);
    return Promise.resolve(this.scripted(fromEpochMs));
  }
}
