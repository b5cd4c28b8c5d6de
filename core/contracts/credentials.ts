import type { z } from 'zod';

/**
 * What a credential looks like, for the two places that must never keep one: a container's
 * environment in a run input (refused: `credentialInEnvironment`) and any text written to a log, a
 * state or a report (replaced: core/contracts/redaction.ts).
 *
 * A container's `Environment` is no place for a secret: SageMaker returns it to anyone allowed
 * `DescribeModel` (`PrimaryContainer.Environment`, SageMaker API reference, DescribeModel,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_DescribeModel.html), and a run
 * copies it into its state, its execution history and its report.
 */

/**
 * AWS access key ids: `AKIA` (long-term) or `ASIA` (temporary, from STS) and 16 more upper-case
 * letters or digits, 20 in all (STS API reference, GetAccessKeyInfo, "an access key ID (for
 * example, AKIAIOSFODNN7EXAMPLE)":
 * https://docs.aws.amazon.com/STS/latest/APIReference/API_GetAccessKeyInfo.html).
 */
export const AWS_ACCESS_KEY_ID = /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/g;

/**
 * AWS secret access keys: 40 characters of base64 (same page: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY").
 * The shape alone also fits other strings, so a candidate must mix upper case, lower case and
 * digits (a git commit or a SHA-1 in hex has no upper case), and stand alone: a longer run of
 * base64 is something else (a task token has its own rule).
 */
const SECRET_KEY_SHAPE = /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

/**
 * Hugging Face user access tokens: `hf_` and about 34 letters and digits (Hugging Face Hub
 * documentation, "User access tokens", https://huggingface.co/docs/hub/security-tokens).
 * 30 is the floor matched, so an identifier such as `hf_model_id` never is.
 */
export const HUGGING_FACE_TOKEN = /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])/g;

/** A 40-character run that looks like a secret access key (`SECRET_KEY_SHAPE` and its mix). */
function isSecretKeyShaped(text: string): boolean {
  return /[A-Z]/.test(text) && /[a-z]/.test(text) && /[0-9]/.test(text);
}

/** `text` with every secret access key shape replaced by `replacement`. */
export function replaceSecretKeys(text: string, replacement: string): string {
  return text.replace(SECRET_KEY_SHAPE, (run) => (isSecretKeyShaped(run) ? replacement : run));
}

/**
 * Variable names that hold a credential whatever their value: the AWS SDKs' and CLI's credential
 * variables, and the Hugging Face libraries' token variables (huggingface_hub reads `HF_TOKEN` and,
 * before it, `HUGGING_FACE_HUB_TOKEN`; the SageMaker Hugging Face toolkit reads `HF_API_TOKEN`;
 * LangChain reads `HUGGINGFACEHUB_API_TOKEN`). Matched without regard to case.
 */
const CREDENTIAL_NAMES: readonly string[] = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_SECURITY_TOKEN',
  'HF_TOKEN',
  'HF_API_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'HUGGINGFACEHUB_API_TOKEN',
];

/**
 * Name endings that say a secret: `…_SECRET_ACCESS_KEY`, `…_SESSION_TOKEN`, `…_API_TOKEN`,
 * `…_API_KEY`, `…_PASSWORD`, `…_SECRET`. Settings that merely mention tokens (`MAX_NEW_TOKENS`,
 * `MAX_TOTAL_TOKENS`, `HF_MAX_BATCH_PREFILL_TOKENS`) end otherwise and are kept.
 */
const CREDENTIAL_NAME_ENDING =
  /(?:^|_)(?:SECRET_ACCESS_KEY|SESSION_TOKEN|API_TOKEN|API_KEY|PASSWORD|SECRET)$/i;

/** Why a variable of a container's environment is refused as a credential, or `undefined`. */
export function credentialInEnvironment(name: string, value: string): string | undefined {
  if (CREDENTIAL_NAMES.includes(name.toUpperCase()) || CREDENTIAL_NAME_ENDING.test(name)) {
    return 'a credential, by its name';
  }
  if (new RegExp(AWS_ACCESS_KEY_ID.source).test(value)) return 'a value holding an AWS access key id';
  if (new RegExp(HUGGING_FACE_TOKEN.source).test(value)) return 'a value holding a Hugging Face token';
  if (replaceSecretKeys(value, '') !== value) return 'a value shaped like an AWS secret access key';
  return undefined;
}

/** What to do instead, said with every refused credential. */
export const CREDENTIAL_EXPECTED =
  'no credential in a container environment (SageMaker shows it to anyone allowed DescribeModel, and ' +
  'the run copies it into its state and reports): keep the secret in AWS Secrets Manager, pass its ' +
  "ARN (e.g. HF_TOKEN_SECRET_ARN) and let the container read it with the endpoint's execution role; " +
  'AWS credentials come from that role, never from variables. A public Hugging Face Hub model needs no ' +
  'token; a private one goes in S3 as the model archive';

/**
 * A zod refinement of an environment map (name → value, or name → values for a range): one issue
 * per credential, at the variable's field. The issue says why by `params.given` and never carries
 * the value, so the refusal itself does not print the secret.
 */
export function refuseCredentials(
  environment: Readonly<Record<string, string | readonly string[]>>,
  context: z.RefinementCtx,
): void {
  for (const [name, values] of Object.entries(environment)) {
    for (const value of typeof values === 'string' ? [values] : values) {
      const reason = credentialInEnvironment(name, value);
      if (reason === undefined) continue;
      context.addIssue({
        code: 'custom',
        path: [name],
        input: undefined,
        params: { given: reason },
        message: CREDENTIAL_EXPECTED,
      });
      break;
    }
  }
}
