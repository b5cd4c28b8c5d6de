import { findInstance, type InstanceSpec } from '../catalog/index.js';

/**
 * What each fact of the instance table lets the planner check (memory is not listed: the memory
 * check, model-fit-check.ts, names a candidate whose memory is unknown itself). A candidate on a
 * type whose fact no source gives is planned anyway: the check cannot run, and the plan says which
 * one was skipped, so the user knows what to watch (or can add the fact to
 * core/catalog/sources/instance-facts.json).
 */
const CHECK_OF: Readonly<Partial<Record<InstanceSpec['unknownFacts'][number], string>>> = {
  vcpus: 'its vCPUs (the local CPU budget)',
  acceleratorDevices: 'the tensor parallel degree against its accelerators',
  neuronCores: 'the tensor parallel degree against its NeuronCores',
  accelerator: 'its accelerator kind',
  computeCapability: "whether the serving image's CUDA runs on its GPU",
  llmContainers: 'which LLM containers have an image for it',
};

/** One warning per candidate instance type that has facts the table does not know. */
export function unknownInstanceFactWarnings(
  instanceTypes: readonly string[],
  specOf: (instanceType: string) => InstanceSpec | undefined = findInstance,
): string[] {
  return [...new Set(instanceTypes)].flatMap((instanceType) => {
    const spec = specOf(instanceType);
    if (spec === undefined) return [];
    const facts = spec.unknownFacts.filter((fact) => CHECK_OF[fact] !== undefined);
    const checks = [...new Set(facts.flatMap((fact) => CHECK_OF[fact] ?? []))];
    if (checks.length === 0) return [];
    return [
      `${instanceType}: no source read for the instance table gives ${facts.join(', ')}, so the plan ` +
        `cannot check ${checks.join('; ')} (add the facts to core/catalog/sources/instance-facts.json and run npm run catalog)`,
    ];
  });
}
