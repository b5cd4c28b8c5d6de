import type {
  AsyncBacklogMetrics,
  AsyncEndpointObserver,
  AsyncScalingPolicy,
  BacklogSample,
  EndpointDescription,
  ScalingActivity,
  ScalingRegistry,
} from '../../../../core/ports/index.js';
import { FakeSageMaker } from '../../../support/fake-sagemaker.js';

/**
 * Fakes of the async workflow's own ports: Application Auto Scaling (the registry and the
 * observer's activities) and a SageMaker whose DescribeEndpoint answers can be scripted, to walk
 * an endpoint through states the in-memory life cycle never reaches (scaled in to zero, failed
 * after creation, another stack's async endpoint).
 */

/**
 * Application Auto Scaling as the async steps see it: every call, in order, in its own log and in
 * the SageMaker fake's (when given), so tests can assert "deregistered before deleted".
 */
export class FakeScalingRegistry implements ScalingRegistry {
  readonly calls: string[] = [];
  /** `endpoint/<name>/variant/<variant>` → the policy it was configured with. */
  readonly policies = new Map<string, AsyncScalingPolicy>();

  constructor(private readonly sharedLog?: string[]) {}

  configureAsyncScaling(
    endpointName: string,
    variantName: string,
    policy: AsyncScalingPolicy,
  ): Promise<void> {
    const target = `endpoint/${endpointName}/variant/${variantName}`;
    this.log(`ConfigureAsyncScaling ${target}`);
    this.policies.set(target, policy);
    return Promise.resolve();
  }

  deregisterEndpointVariant(endpointName: string, variantName: string): Promise<boolean> {
    const target = `endpoint/${endpointName}/variant/${variantName}`;
    this.log(`DeregisterScalableTarget ${target}`);
    return Promise.resolve(this.policies.delete(target));
  }

  private log(call: string): void {
    this.calls.push(call);
    this.sharedLog?.push(call);
  }
}

/**
 * The in-memory SageMaker, with DescribeEndpoint answers that can be scripted per endpoint: each
 * call takes the next answer, the last one repeats. `undefined` answers "no such endpoint".
 * Endpoints without a script follow the in-memory life cycle. Every DescribeEndpoint is logged.
 */
export class ScriptedSageMaker extends FakeSageMaker {
  readonly describes: string[] = [];
  private readonly scripts = new Map<string, (EndpointDescription | undefined)[]>();

  /** Scripts the answers of DescribeEndpoint for `endpointName`, in order. */
  answerDescribe(endpointName: string, ...answers: (EndpointDescription | undefined)[]): this {
    this.scripts.set(endpointName, [...answers]);
    return this;
  }

  override describeEndpoint(endpointName: string): Promise<EndpointDescription | undefined> {
    this.describes.push(endpointName);
    const script = this.scripts.get(endpointName);
    if (script === undefined || script.length === 0) return super.describeEndpoint(endpointName);
    const answer = script.length > 1 ? script.shift() : script[0];
    return Promise.resolve(answer);
  }
}

/** What an async endpoint of this stack looks like through DescribeEndpoint/DescribeEndpointConfig. */
export function asyncEndpointDescription(
  endpointName: string,
  overrides: Partial<EndpointDescription> = {},
): EndpointDescription {
  return {
    endpointName,
    status: 'InService',
    instanceType: 'ml.c5.xlarge',
    instanceCount: 1,
    variantName: 'AllTraffic',
    currentInstanceCount: 1,
    asyncInference: {
      s3OutputPath: 's3://mso-artifacts/runs/shared/async/output/',
      successTopicArn: 'arn:aws:sns:us-east-1:123456789012:mso-async-success',
      errorTopicArn: 'arn:aws:sns:us-east-1:123456789012:mso-async-error',
    },
    ...overrides,
  };
}

/** Scaling activities and backlog metrics as scripted, and every query it was asked. */
export class FakeEndpointObserver implements AsyncEndpointObserver {
  readonly queries: string[] = [];

  constructor(
    private readonly activities: readonly ScalingActivity[] = [],
    private readonly backlog: AsyncBacklogMetrics = {},
    private readonly series: readonly BacklogSample[] = [],
  ) {}

  scalingActivities(
    endpointName: string,
    variantName: string,
    sinceEpochMs: number,
  ): Promise<readonly ScalingActivity[]> {
    this.queries.push(`scalingActivities ${endpointName}/${variantName} since ${sinceEpochMs}`);
    return Promise.resolve(this.activities.filter((activity) => activity.startEpochMs >= sinceEpochMs));
  }

  backlogMetrics(
    endpointName: string,
    startEpochMs: number,
    endEpochMs: number,
  ): Promise<AsyncBacklogMetrics> {
    this.queries.push(`backlogMetrics ${endpointName} ${startEpochMs}-${endEpochMs}`);
    return Promise.resolve(this.backlog);
  }

  backlogSeries(
    endpointName: string,
    startEpochMs: number,
    endEpochMs: number,
  ): Promise<readonly BacklogSample[]> {
    this.queries.push(`backlogSeries ${endpointName} ${startEpochMs}-${endEpochMs}`);
    return Promise.resolve(
      this.series.filter((sample) => sample.atEpochMs >= startEpochMs && sample.atEpochMs <= endEpochMs),
    );
  }
}
