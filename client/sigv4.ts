import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, HttpRequest } from '@smithy/types';
import { RunApiError } from './errors.js';

/**
 * SigV4 signing of requests to an IAM-authenticated API Gateway API (signing name `execute-api`),
 * with the SDK's own signer and SHA-256. Credentials come from the Node.js default chain
 * (environment, SSO, shared config and credentials files, container and instance metadata) unless
 * given; the chain is built on the first signed request, never at import.
 */

export const EXECUTE_API_SERVICE = 'execute-api';

export type Credentials = AwsCredentialIdentity | AwsCredentialIdentityProvider;

export interface RequestToSign {
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  readonly body?: string;
}

export interface SignedRequest {
  /** The headers to send: the signature, `x-amz-date`, the payload hash and the session token. */
  readonly headers: Record<string, string>;
}

/**
 * The AWS partitions' region names: the union of the `regionRegex` of each partition in the SDK's
 * endpoint data (@aws-sdk/core, `util-endpoints/lib/aws/partitions.js`: `^(us|eu|ap|sa|ca|me|af|il|mx)-\w+-\d+$`
 * for aws, `^cn-\w+-\d+$`, `^us-gov-\w+-\d+$`, `^us-iso-…`, `^us-isob-…`, `^us-isof-…`,
 * `^eu-isoe-…`, `^eusc-de-…`), written with lower-case letters only as every region is named
 * (https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html). The region
 * is part of the signature's credential scope: a malformed one is refused before anything is signed.
 */
const AWS_REGION_PATTERN =
  /^(?:us|eu|ap|sa|ca|me|af|il|mx|cn|us-gov|us-iso|us-isob|us-isof|eu-isoe|eusc-de)-[a-z]+-\d+$/;

export const AWS_REGION_EXPECTED = 'an AWS region name such as us-east-1 or eu-west-3';

export function isAwsRegion(region: string): boolean {
  return AWS_REGION_PATTERN.test(region);
}

/** The region of an execute-api URL (`<api id>.execute-api.<region>.amazonaws.com`), if it is one. */
export function regionOfApiUrl(url: URL): string | undefined {
  return /^[a-z0-9]+\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/.exec(url.hostname)?.[1];
}

export class ExecuteApiSigner {
  private readonly region: string;
  private readonly credentials: Credentials | undefined;
  private signer: SignatureV4 | undefined;

  constructor(region: string, credentials?: Credentials) {
    this.region = region;
    this.credentials = credentials;
  }

  async sign(request: RequestToSign, signingDate?: Date): Promise<SignedRequest> {
    const { url } = request;
    const unsigned: HttpRequest = {
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port === '' ? {} : { port: Number(url.port) }),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      // `host` is signed as the client will send it: with the port when the URL has one.
      headers: {
        host: url.host,
        accept: 'application/json',
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(request.body === undefined ? {} : { body: request.body }),
    };
    try {
      const signed = await this.signerFor().sign(unsigned, signingDate === undefined ? {} : { signingDate });
      return { headers: { ...signed.headers } };
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'CredentialsProviderError') throw error;
      throw new RunApiError(
        `No AWS credentials to sign the request to ${url.host} (${error.message}), expected credentials ` +
          'from the default chain: AWS_PROFILE (after `aws sso login` for SSO profiles), ' +
          'AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY, or the role of the machine or container',
        0,
        'NoCredentials',
        { cause: error },
      );
    }
  }

  private signerFor(): SignatureV4 {
    this.signer ??= new SignatureV4({
      service: EXECUTE_API_SERVICE,
      region: this.region,
      credentials: this.credentials ?? fromNodeProviderChain(),
      sha256: Sha256,
    });
    return this.signer;
  }
}
