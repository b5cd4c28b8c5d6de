import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, HttpRequest } from '@smithy/types';
import { parseObjectUri } from '../../core/contracts/index.js';
import type { ObjectPresigner } from '../../core/run-status/index.js';

/**
 * `ObjectPresigner` for S3 GetObject: a SigV4 query-string signature ("Authenticating Requests:
 * Using Query Parameters (AWS Signature Version 4)", Amazon S3 API reference) over a
 * virtual-hosted-style URL, with the signer the SDK itself uses (`@smithy/signature-v4`), the
 * payload hash `UNSIGNED-PAYLOAD` ("you don't know the payload when you create a presigned URL")
 * and the path encoded once (S3 does not double-encode it, unlike other services). Signing is
 * local: no request is made, and the link works only while the signer may s3:GetObject the key and
 * kms:Decrypt with the bucket's key.
 */

/** A presigned URL may be valid for at most 7 days (SigV4 `X-Amz-Expires`: 604,800 s). */
const MAX_EXPIRES_SECONDS = 604_800;

export interface S3PresignerOptions {
  /** The bucket's region: the stack's own. */
  readonly region: string;
  /** The Lambda's role credentials (AWS_ACCESS_KEY_ID, …, from the environment in Lambda). */
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** @default 'amazonaws.com' */
  readonly dnsSuffix?: string;
}

export class S3Presigner implements ObjectPresigner {
  private readonly signer: SignatureV4;
  private readonly region: string;
  private readonly dnsSuffix: string;

  constructor(options: S3PresignerOptions) {
    this.region = options.region;
    this.dnsSuffix = options.dnsSuffix ?? 'amazonaws.com';
    this.signer = new SignatureV4({
      service: 's3',
      region: options.region,
      credentials: options.credentials,
      sha256: Sha256,
      uriEscapePath: false,
    });
  }

  async presignGet(uri: string, expiresInSeconds: number): Promise<string> {
    const { scheme, bucket, key } = parseObjectUri(uri);
    if (scheme !== 's3') throw new TypeError(`S3Presigner: got ${uri}, expected an s3://bucket/key URI`);
    if (!(
      Number.isInteger(expiresInSeconds) &&
      expiresInSeconds > 0 &&
      expiresInSeconds <= MAX_EXPIRES_SECONDS
    )) {
      throw new RangeError(
        `S3Presigner: got expiresInSeconds ${expiresInSeconds}, expected a whole number from 1 to ${MAX_EXPIRES_SECONDS}`,
      );
    }
    const hostname = `${bucket}.s3.${this.region}.${this.dnsSuffix}`;
    const request: HttpRequest = {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: `/${key.split('/').map(encodeRfc3986).join('/')}`,
      query: {},
      headers: { host: hostname, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
    };
    // The header only sets the payload hash: kept out of the query and of the signed headers, so
    // the URL is what S3's query-parameter authentication describes, with `host` signed alone.
    const payloadHeader = new Set(['x-amz-content-sha256']);
    const signed = await this.signer.presign(request, {
      expiresIn: expiresInSeconds,
      unhoistableHeaders: payloadHeader,
      unsignableHeaders: payloadHeader,
    });
    const query = Object.entries(signed.query ?? {})
      .map(([name, value]) => `${encodeRfc3986(name)}=${encodeRfc3986(String(value))}`)
      .join('&');
    return `https://${hostname}${signed.path}?${query}`;
  }
}

/** URI encoding as SigV4 defines it: every byte but A-Z a-z 0-9 - . _ ~ is percent-encoded. */
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
