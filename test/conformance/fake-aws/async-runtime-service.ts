import { randomUUID } from 'node:crypto';
import { type SageMakerRuntimeClient, ValidationError } from '@aws-sdk/client-sagemaker-runtime';
import { notificationMessage } from '../../../local/platform/notification-message.js';
import { type AwsRecorder, installFake } from './recorder.js';
import type { FakeS3Service } from './s3-service.js';
import { REGION, type FakeSageMakerService } from './sagemaker-service.js';

/** Delivers an SNS message to the topic's subscriber (the notification Lambda's core). */
export type TopicSubscriber = (topicArn: string, messageId: string, message: string) => Promise<void>;

/**
 * SageMaker Runtime's InvokeEndpointAsync over the fake control plane: the endpoint must exist and
 * be asynchronous (else `ValidationError`), the answer names `<S3OutputPath><id>.out`; on a later
 * turn the "instance" writes the result to S3 and publishes SageMaker's notification to the
 * config's success topic.
 */
export class FakeAsyncRuntime {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly sagemaker: FakeSageMakerService,
    private readonly s3: FakeS3Service,
    private readonly deliver: TopicSubscriber,
  ) {}

  install(client: SageMakerRuntimeClient, recorder: AwsRecorder): void {
    installFake({
      client,
      clientName: 'SageMakerRuntimeClient',
      recorder,
      validationError: (message) => new ValidationError({ message, $metadata: { httpStatusCode: 400 } }),
      handle: (command, input) => this.handle(command, input),
    });
  }

  /** Resolves once every queued request has been answered and notified. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private handle(command: string, input: Record<string, unknown>): unknown {
    if (command !== 'InvokeEndpointAsyncCommand') {
      throw new Error(`FakeAsyncRuntime: ${command} is not faked; add it to the fake`);
    }
    const endpointName = String(input.EndpointName);
    const endpoint = this.sagemaker.endpoints.get(endpointName);
    const config =
      endpoint === undefined ? undefined : this.sagemaker.endpointConfigs.get(endpoint.configName);
    const asyncConfig = config?.input.AsyncInferenceConfig as
      | {
          OutputConfig: {
            S3OutputPath: string;
            S3FailurePath?: string;
            NotificationConfig?: { SuccessTopic?: string };
          };
        }
      | undefined;
    if (endpoint === undefined || asyncConfig === undefined) {
      throw new ValidationError({
        message: `Endpoint ${endpointName} of account 123456789012 not found or not asynchronous.`,
        $metadata: { httpStatusCode: 400 },
      });
    }
    const id = randomUUID();
    const inferenceId = typeof input.InferenceId === 'string' ? input.InferenceId : id;
    const outputLocation = `${asyncConfig.OutputConfig.S3OutputPath}${id}.out`;
    const receivedAtEpochMs = Date.now();
    const topic = asyncConfig.OutputConfig.NotificationConfig?.SuccessTopic;
    const work = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      this.s3.seed(outputLocation, '{"predictions":[[0.1,0.9]]}');
      if (topic === undefined) return;
      const message = notificationMessage(
        {
          endpointName,
          inferenceId,
          inputLocation: String(input.InputLocation),
          contentType: typeof input.ContentType === 'string' ? input.ContentType : 'application/octet-stream',
          receivedAtEpochMs,
        },
        { status: 'completed', outputLocation, contentType: 'application/json' },
        { region: REGION, finishedAtEpochMs: Date.now() },
      );
      await this.deliver(topic, randomUUID(), message);
    })();
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
    return {
      InferenceId: inferenceId,
      OutputLocation: outputLocation,
      ...(asyncConfig.OutputConfig.S3FailurePath === undefined
        ? {}
        : { FailureLocation: `${asyncConfig.OutputConfig.S3FailurePath}${id}-error.out` }),
    };
  }
}
