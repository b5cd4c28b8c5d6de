import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { S3Presigner } from '../../../lambdas/adapters/s3-presigner.js';

const CREDENTIALS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session+token/=',
};

/**
 * The signature S3 computes for a presigned GET ("Authenticating Requests: Using Query Parameters",
 * Amazon S3 API reference), written out here independently of the signer the adapter uses: the
 * canonical request with the path as sent, the query sorted without the signature, `host` the only
 * signed header and `UNSIGNED-PAYLOAD` as the payload hash.
 */
function expectedSignature(url: URL, secretAccessKey: string): string {
  const query = [...url.searchParams]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [encode(name), encode(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalRequest = [
    'GET',
    url.pathname,
    query,
    `host:${url.host}`,
    '',
    'host',
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const amzDate = url.searchParams.get('X-Amz-Date') ?? '';
  const [, scope = ''] = /^[^/]+\/(.+)$/.exec(url.searchParams.get('X-Amz-Credential') ?? '') ?? [];
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    scope,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  const [date = '', region = '', service = ''] = scope.split('/');
  let key: Buffer = createHmac('sha256', `AWS4${secretAccessKey}`).update(date).digest();
  for (const part of [region, service, 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}

function encode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

describe('S3Presigner', () => {
  const presigner = new S3Presigner({ region: 'eu-west-1', credentials: CREDENTIALS });

  it('signs a virtual-hosted GET of the object for the time asked, with the session token, as S3 verifies it', async () => {
    // Act
    const url = new URL(await presigner.presignGet('s3://mso-artifacts/runs/nightly/report.html', 900));

    // Assert
    expect(`${url.origin}${url.pathname}`).toBe(
      'https://mso-artifacts.s3.eu-west-1.amazonaws.com/runs/nightly/report.html',
    );
    expect(Object.fromEntries([...url.searchParams].filter(([name]) => name !== 'X-Amz-Signature'))).toEqual({
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': expect.stringMatching(/^AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request$/),
      'X-Amz-Date': expect.stringMatching(/^\d{8}T\d{6}Z$/),
      'X-Amz-Expires': '900',
      'X-Amz-Security-Token': 'session+token/=',
      'X-Amz-SignedHeaders': 'host',
    });
    expect(url.searchParams.get('X-Amz-Signature')).toBe(expectedSignature(url, CREDENTIALS.secretAccessKey));
  });

  it('encodes each segment of a key once, as S3 reads the path', async () => {
    // Act
    const url = await presigner.presignGet('s3://b/runs/a run (1)/report.md', 60);

    // Assert
    expect(url).toMatch(/^https:\/\/b\.s3\.eu-west-1\.amazonaws\.com\/runs\/a%20run%20%281%29\/report\.md\?/);
    expect(new URL(url).searchParams.get('X-Amz-Signature')).toBe(
      expectedSignature(new URL(url), CREDENTIALS.secretAccessKey),
    );
  });

  it('refuses a link longer than SigV4 allows (7 days)', async () => {
    // Act
    const presign = presigner.presignGet('s3://b/k', 604_801);

    // Assert
    await expect(presign).rejects.toThrow(
      'S3Presigner: got expiresInSeconds 604801, expected a whole number from 1 to 604800',
    );
  });

  it('refuses a URI that is not in S3', async () => {
    // Act
    const presign = presigner.presignGet('file:///tmp/report.json', 60);

    // Assert
    await expect(presign).rejects.toThrow(
      'S3Presigner: got file:///tmp/report.json, expected an s3://bucket/key URI',
    );
  });
});
