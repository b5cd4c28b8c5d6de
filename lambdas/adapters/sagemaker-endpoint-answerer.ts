import { InvokeEndpointCommand, type SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import type { EndpointAnswer, EndpointAnswerer } from '../../core/ports/index.js';
import { classifyInvokeError } from './sagemaker-runtime-transport.js';

/**
 * The output-quality guard's `EndpointAnswerer` on AWS: one InvokeEndpoint, its body kept.
 * InvokeEndpoint's response carries the container's `Body` and `ContentType` (and custom
 * attributes), not its other headers (SageMaker Runtime API reference, InvokeEndpoint:
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html), so no
 * output shape travels with a raw body. Errors are classified as the load test classifies them
 * (classifyInvokeError) and become the answer's problem: the verdict reads them.
 */
export function createSageMakerEndpointAnswerer(client: SageMakerRuntimeClient): EndpointAnswerer {
  return {
    async answer(
      endpointName: string,
      request: Parameters<EndpointAnswerer['answer']>[1],
      timeoutMs: number,
    ): Promise<EndpointAnswer> {
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const response = await client.send(
          new InvokeEndpointCommand({
            EndpointName: endpointName,
            Body: request.body,
            ContentType: request.contentType,
            ...(request.accept === undefined ? {} : { Accept: request.accept }),
          }),
          { abortSignal: signal },
        );
        return {
          ok: true,
          body: response.Body,
          ...(response.ContentType === undefined ? {} : { contentType: response.ContentType }),
        };
      } catch (error) {
        const outcome = classifyInvokeError(error, signal);
        return {
          ok: false,
          problem: `${outcome.kind === 'ok' ? 'answer' : outcome.kind}: ${'message' in outcome ? outcome.message : ''}`,
        };
      }
    },
  };
}
