/** The three resources behind one endpoint, by name. */
export interface HostedResourceNames {
  readonly endpointName: string;
  readonly endpointConfigName: string;
  readonly modelName: string;
}
