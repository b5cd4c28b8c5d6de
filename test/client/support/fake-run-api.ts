import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';

/**
 * A stand-in for the run API on 127.0.0.1: it records every request, checks its SigV4 signature the
 * way API Gateway does (recomputes it from the request it received, with the caller's secret key)
 * and answers with what the test scripted.
 */

export const TEST_CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
export const TEST_REGION = 'us-east-1';

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  /** The query string, `?` included, or `''`. */
  readonly search: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The Authorization header equals the signature recomputed here from the received request. */
  readonly signatureValid: boolean;
}

export interface ScriptedAnswer {
  readonly status: number;
  readonly body: unknown;
}

export type Responder = (request: ReceivedRequest) => ScriptedAnswer;

export class FakeRunApi {
  readonly requests: ReceivedRequest[] = [];
  private readonly server: Server;
  private responder: Responder = () => ({ status: 500, body: { message: 'no answer scripted' } });

  private constructor() {
    this.server = createServer((incoming, outgoing) => {
      void this.receive(incoming).then((request) => {
        this.requests.push(request);
        const answer = this.responder(request);
        outgoing.writeHead(answer.status, { 'content-type': 'application/json' });
        outgoing.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      });
    });
  }

  static async start(): Promise<FakeRunApi> {
    const api = new FakeRunApi();
    await new Promise<void>((resolve) => {
      api.server.listen(0, '127.0.0.1', resolve);
    });
    return api;
  }

  /** The stage URL, as the RunApiUrl output gives it. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/`;
  }

  answer(responder: Responder): void {
    this.requests.length = 0;
    this.responder = responder;
  }

  /** Answers in turn with each of `answers`, the last one from then on. */
  answerInTurn(...answers: ScriptedAnswer[]): void {
    let next = 0;
    this.answer(() => {
      const answer = answers[Math.min(next, answers.length - 1)];
      next += 1;
      if (answer === undefined) throw new Error('answerInTurn needs at least one answer');
      return answer;
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      // fetch keeps connections alive; close them rather than wait for their idle timeout.
      this.server.closeAllConnections();
      this.server.close(() => {
        resolve();
      });
    });
  }

  private async receive(incoming: IncomingMessage): Promise<ReceivedRequest> {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = Object.fromEntries(
      Object.entries(incoming.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(',') : (value ?? ''),
      ]),
    );
    const url = new URL(incoming.url ?? '/', `http://${headers.host ?? '127.0.0.1'}`);
    const request = {
      method: incoming.method ?? 'GET',
      path: url.pathname,
      search: url.search,
      headers,
      body,
    };
    return { ...request, signatureValid: await verifySignature(request, url) };
  }
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/;

/** Recomputes the signature over the headers the client said it signed, at the time it signed. */
async function verifySignature(request: Omit<ReceivedRequest, 'signatureValid'>, url: URL): Promise<boolean> {
  const authorization = request.headers.authorization ?? '';
  const match = AUTHORIZATION.exec(authorization);
  const amzDate = request.headers['x-amz-date'];
  if (match === null || amzDate === undefined) return false;
  const signedHeaders = (match[2] ?? '').split(';');
  const signingDate = new Date(
    amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
  );
  const toSign: HttpRequest = {
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: Object.fromEntries(signedHeaders.map((name) => [name, request.headers[name] ?? ''])),
    ...(request.body === '' ? {} : { body: request.body }),
  };
  const signer = new SignatureV4({
    service: 'execute-api',
    region: TEST_REGION,
    credentials: TEST_CREDENTIALS,
    sha256: Sha256,
  });
  const expected = await signer.sign(toSign, { signingDate });
  return expected.headers.authorization === authorization;
}
