import {
  type ApplicationAutoScalingClient,
  ObjectNotFoundException,
  ValidationException,
} from '@aws-sdk/client-application-auto-scaling';
import {
  type CloudWatchClient,
  InvalidParameterValueException,
  ResourceNotFound,
} from '@aws-sdk/client-cloudwatch';
import { ACCOUNT_ID, REGION } from './sagemaker-service.js';
import { type AwsRecorder, installFake } from './recorder.js';

type Input = Record<string, unknown>;

/**
 * Application Auto Scaling and CloudWatch as the scaling registry and the observers meet them:
 * scalable targets keyed by resource id and dimension (a policy needs a registered target,
 * deregistering an unknown one is `ObjectNotFoundException`), alarms by name (DeleteAlarms of an
 * unknown name is `ResourceNotFound`), GetMetricData answering each query id with no data yet.
 */
export class FakeScalingServices {
  readonly targets = new Map<string, Input>();
  readonly policies = new Map<string, Input>();
  readonly alarms = new Map<string, Input>();

  install(
    clients: { autoScaling: ApplicationAutoScalingClient; cloudWatch: CloudWatchClient },
    recorder: AwsRecorder,
  ): void {
    installFake({
      client: clients.autoScaling,
      clientName: 'ApplicationAutoScalingClient',
      recorder,
      validationError: (message) => new ValidationException({ message, $metadata: { httpStatusCode: 400 } }),
      handle: (command, input) => this.autoScaling(command, input),
    });
    installFake({
      client: clients.cloudWatch,
      clientName: 'CloudWatchClient',
      recorder,
      validationError: (message) =>
        new InvalidParameterValueException({ message, $metadata: { httpStatusCode: 400 } }),
      handle: (command, input) => this.cloudWatch(command, input),
    });
  }

  private autoScaling(command: string, input: Input): unknown {
    const targetKey = `${String(input.ResourceId)}|${String(input.ScalableDimension)}`;
    switch (command) {
      case 'RegisterScalableTargetCommand':
        this.targets.set(targetKey, input);
        return {
          ScalableTargetARN: `arn:aws:application-autoscaling:${REGION}:${ACCOUNT_ID}:scalable-target/${this.targets.size}`,
        };
      case 'PutScalingPolicyCommand': {
        if (!this.targets.has(targetKey)) throw notFound(`No scalable target registered for ${targetKey}`);
        this.policies.set(`${targetKey}|${String(input.PolicyName)}`, input);
        return {
          PolicyARN: `arn:aws:autoscaling:${REGION}:${ACCOUNT_ID}:scalingPolicy:${this.policies.size}:resource/sagemaker/${String(input.ResourceId)}:policyName/${String(input.PolicyName)}`,
          Alarms: [],
        };
      }
      case 'DeregisterScalableTargetCommand':
        if (!this.targets.delete(targetKey)) throw notFound(`No scalable target registered for ${targetKey}`);
        for (const key of [...this.policies.keys()])
          if (key.startsWith(`${targetKey}|`)) this.policies.delete(key);
        return {};
      case 'DescribeScalingActivitiesCommand':
        return { ScalingActivities: [] };
      default:
        throw new Error(`FakeScalingServices: ${command} is not faked; add it to the fake`);
    }
  }

  private cloudWatch(command: string, input: Input): unknown {
    switch (command) {
      case 'PutMetricAlarmCommand':
        this.alarms.set(String(input.AlarmName), input);
        return {};
      case 'DeleteAlarmsCommand': {
        const names = (input.AlarmNames ?? []) as string[];
        const unknown = names.filter((name) => !this.alarms.has(name));
        if (unknown.length > 0) {
          throw new ResourceNotFound({
            message: `Alarms not found: ${unknown.join(', ')}`,
            $metadata: { httpStatusCode: 404 },
          });
        }
        for (const name of names) this.alarms.delete(name);
        return {};
      }
      case 'GetMetricDataCommand':
        // CloudWatch publishes minutes late: a fresh endpoint has no data points yet.
        return {
          MetricDataResults: ((input.MetricDataQueries ?? []) as Input[]).map((query) => ({
            Id: query.Id,
            Timestamps: [],
            Values: [],
            StatusCode: 'Complete',
          })),
        };
      default:
        throw new Error(`FakeScalingServices: ${command} is not faked; add it to the fake`);
    }
  }
}

function notFound(message: string): ObjectNotFoundException {
  return new ObjectNotFoundException({ message, $metadata: { httpStatusCode: 400 } });
}
