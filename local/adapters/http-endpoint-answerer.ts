import type { EndpointAnswer, EndpointAnswerer } from '../../core/ports/index.js';
import type { LocalEndpointDirectory } from './local-transport-factory.js';

/**
 * Local mode's `EndpointAnswerer`: one POST to the endpoint's model server `/invocations`, found in
 * the local model host's registry, its body and the headers the answer is read by kept (the
 * server's `X-Output-Shape` for a raw float32 body, local/model-server/payload.ts).
 */
export function createHttpEndpointAnswerer(endpoints: LocalEndpointDirectory): EndpointAnswerer {
  return {
    async answer(
      endpointName: string,
      request: Parameters<EndpointAnswerer['answer']>[1],
      timeoutMs: number,
    ): Promise<EndpointAnswer> {
      const origin = endpoints.endpointUrl(endpointName);
      if (origin === undefined) {
        return { ok: false, problem: `endpoint ${endpointName} is not in service locally` };
      }
      try {
        const response = await fetch(new URL('/invocations', origin), {
          method: 'POST',
          body: request.body,
          headers: {
            'content-type': request.contentType,
            ...(request.accept === undefined ? {} : { accept: request.accept }),
          },
          signal: AbortSignal.timeout(timeoutMs),
        });
        const body = new Uint8Array(await response.arrayBuffer());
        if (!response.ok) {
          const text = new TextDecoder().decode(body.subarray(0, 200));
          return { ok: false, problem: `model-error: HTTP ${response.status} ${text}` };
        }
        const contentType = response.headers.get('content-type') ?? undefined;
        const outputShape = response.headers.get('x-output-shape') ?? undefined;
        return {
          ok: true,
          body,
          ...(contentType === undefined ? {} : { contentType }),
          ...(outputShape === undefined ? {} : { outputShape }),
        };
      } catch (error) {
        return {
          ok: false,
          problem: `request failed: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
    },
  };
}
