/**
 * A loopback HTTPS stand-in for `runtime.sagemaker.<region>.amazonaws.com`, for the signed-path
 * bench: it recomputes the SigV4 signature of every request with the bench's static credentials
 * (as the service does with the caller's secret key) and refuses a mismatch with 403
 * `InvalidSignatureException`, so a wrong signature shows up as the client's errors; a signed
 * request gets InvokeEndpoint's answer. Prints {"port": n} when listening.
 *
 * Argument: --cert-dir DIR, holding cert.pem and key.pem (bench/support/self-signed-cert.ts).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';
import { BENCH_CREDENTIALS, BENCH_REGION, INVOKE_PATH, SIGNING_NAME } from '../support/signed-path.js';
import { serveBenchChild } from '../support/child-server.js';

const { values } = parseArgs({ options: { 'cert-dir': { type: 'string' } } });
const certDir = values['cert-dir'] ?? '.';

// One signer for the server's life: it caches the signing key per day, as the service may.
const signer = new SignatureV4({
  service: SIGNING_NAME,
  region: BENCH_REGION,
  credentials: BENCH_CREDENTIALS,
  sha256: Sha256,
  // The client's x-amz-content-sha256 (when it sends one) is checked against the body below.
  applyChecksum: false,
});
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

function header(request: IncomingMessage, name: string): string {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

/** Why the request's signature is not the one its credentials give, or undefined when it is. */
async function signatureMismatch(request: IncomingMessage, body: Buffer): Promise<string | undefined> {
  const authorization = header(request, 'authorization');
  const match = AUTHORIZATION.exec(authorization);
  const amzDate = header(request, 'x-amz-date');
  if (match === null || !AMZ_DATE.test(amzDate)) return 'missing or malformed Authorization or X-Amz-Date';
  const signedHeaders = (match[2] ?? '').split(';');
  const claimedHash = header(request, 'x-amz-content-sha256');
  if (claimedHash !== '' && claimedHash !== 'UNSIGNED-PAYLOAD') {
    const hash = new Sha256();
    hash.update(body);
    if (Buffer.from(await hash.digest()).toString('hex') !== claimedHash)
      return 'x-amz-content-sha256 is not the body hash';
  }
  const [path = '/', query = ''] = (request.url ?? '/').split('?');
  const toSign: HttpRequest = {
    method: request.method ?? 'POST',
    protocol: 'https:',
    hostname: header(request, 'host').replace(/:\d+$/, ''),
    path,
    query: Object.fromEntries(new URLSearchParams(query)),
    headers: Object.fromEntries(signedHeaders.map((name) => [name, header(request, name)])),
    body,
  };
  const expected = await signer.sign(toSign, {
    signingDate: new Date(amzDate.replace(AMZ_DATE, '$1-$2-$3T$4:$5:$6Z')),
  });
  return expected.headers.authorization === authorization ? undefined : 'signature mismatch';
}

/**
 * InvokeEndpoint's answer (SageMaker Runtime API reference, InvokeEndpoint, response syntax,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html):
 * the model's bytes as the body, its Content-Type, and X-Amzn-Invoked-Production-Variant.
 */
const MODEL_OUTPUT = Buffer.from('{"outputs":[[0.1,0.9]]}');

function answer(request: IncomingMessage, response: ServerResponse, body: Buffer): void {
  void signatureMismatch(request, body).then((mismatch) => {
    if (request.method !== 'POST' || !INVOKE_PATH.test(request.url ?? '')) {
      response.writeHead(404, {
        'content-type': 'application/json',
        'x-amzn-errortype': 'UnknownOperationException',
      });
      response.end('{"message":"not an InvokeEndpoint request"}');
    } else if (mismatch !== undefined) {
      // restJson1 errors carry their name in X-Amzn-ErrorType; the SDK raises it by that name.
      response.writeHead(403, {
        'content-type': 'application/json',
        'x-amzn-errortype': 'InvalidSignatureException',
        'x-amzn-requestid': randomUUID(),
      });
      response.end(
        JSON.stringify({ message: `The request signature we calculated does not match (${mismatch})` }),
      );
    } else {
      response.writeHead(200, {
        'content-type': 'application/json',
        'x-amzn-invoked-production-variant': 'AllTraffic',
        'x-amzn-requestid': randomUUID(),
      });
      response.end(MODEL_OUTPUT);
    }
  });
}

const server = createServer(
  { cert: readFileSync(join(certDir, 'cert.pem')), key: readFileSync(join(certDir, 'key.pem')) },
  (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      answer(request, response, Buffer.concat(chunks));
    });
  },
);
serveBenchChild(server);
