/**
 * The stand-in account and Region of the local synthesis: the template is synthesized offline,
 * never deployed, and its ARNs carry these literals. A module of its own, so that a reader of the
 * cached template (the conformance layer's IAM evaluation) knows them without loading aws-cdk-lib.
 */
export const SYNTHESIS_ENV = { account: '000000000000', region: 'local-1' } as const;
