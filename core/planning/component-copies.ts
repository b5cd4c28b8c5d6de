import type { InstanceSpec } from '../catalog/index.js';
import {
  type ComponentRequest,
  copyCountsOf,
  type PlannedComponent,
  resourceName,
} from '../contracts/index.js';
import type { InputIssue } from '../contracts/index.js';

/**
 * Planning of candidates served by inference components: a copy sweep becomes one candidate per
 * copy count, and every count is checked against the instance's facts before anything is created.
 *
 * SageMaker places an inference component's copies on the variant's instances and reserves each
 * copy's CPU cores, accelerator devices and minimum memory there (SageMaker API reference,
 * InferenceComponentComputeResourceRequirements); copies that do not fit stay unplaced, and the
 * component waits for capacity. Per instance, the copies' reservations must fit the instance, so
 * the checks multiply each requirement by the copies per instance. The facts are upper bounds:
 * SageMaker also keeps some of each instance for its own agents, an amount it does not document,
 * so a count that passes here can still leave copies unplaced, and the component's status says so.
 */

/** One candidate of a copy sweep: its id says its copy count. */
export interface ExpandedCopies {
  readonly id: string;
  readonly copiesPerInstance: number;
}

/**
 * A fixed count keeps the candidate's id; a sweep gives each count its own id, `<id>-x<count>`
 * (candidate ids are at most 24 characters, so the suffix stays short).
 */
export function expandCopies(candidateId: string, request: ComponentRequest): ExpandedCopies[] {
  if (typeof request.copies === 'number') return [{ id: candidateId, copiesPerInstance: request.copies }];
  return request.copies.map((count) => ({ id: `${candidateId}-x${count}`, copiesPerInstance: count }));
}

/** The component a candidate deploys: named from the run and the candidate, copies over all instances. */
export function planComponent(options: {
  readonly runId: string;
  readonly candidateId: string;
  readonly variantName: string;
  readonly copiesPerInstance: number;
  readonly instanceCount: number;
  readonly request: ComponentRequest;
}): PlannedComponent {
  return {
    inferenceComponentName: resourceName(options.runId, 'inference-component', options.candidateId),
    variantName: options.variantName,
    copiesPerInstance: options.copiesPerInstance,
    copyCount: options.copiesPerInstance * options.instanceCount,
    perCopy: options.request.perCopy,
  };
}

export interface ComponentFit {
  readonly issues: readonly InputIssue[];
  /** Checks that could not run because the catalog does not know a fact. */
  readonly warnings: readonly string[];
}

/**
 * Whether every copy count of `request` fits one `instanceType` instance: accelerator devices,
 * CPU cores against vCPUs, minimum memory against the instance's memory. `field` is the candidate's
 * path in the run input (`candidates[2]`); each issue names the sub-field, the product that does
 * not fit and the instance's figure.
 */
export function componentFit(
  field: string,
  instanceType: string,
  request: ComponentRequest,
  spec: InstanceSpec | undefined,
): ComponentFit {
  if (spec === undefined) {
    return {
      issues: [],
      warnings: [
        `${field}: the catalog does not describe ${instanceType}; its copies per instance are not checked against the instance`,
      ],
    };
  }
  const issues: InputIssue[] = [];
  const warnings: string[] = [];
  const counts = copyCountsOf(request);
  const { perCopy } = request;
  const copiesField = `${field}.copies`;

  const devices = perCopy.acceleratorDevices;
  if (devices !== undefined) {
    // acceleratorCount is the instance's NVIDIA GPUs, or its NeuronCores on Inferentia and
    // Trainium (the larger count, so no placement SageMaker accepts is refused here).
    const available = spec.acceleratorCount;
    if (available === undefined) {
      warnings.push(unknownFact(field, instanceType, 'accelerator devices'));
    } else if (available === 0) {
      issues.push({
        field: `${field}.perCopy.acceleratorDevices`,
        given: String(devices),
        expected: `no accelerator devices: ${instanceType} has none; remove acceleratorDevices or choose an instance with GPUs or Inferentia`,
      });
    } else {
      issues.push(
        ...overBudget(copiesField, counts, devices, available, {
          unit: 'accelerator devices',
          instanceType,
        }),
      );
    }
  }
  if (perCopy.cpuCores !== undefined) {
    if (spec.vcpus === undefined) warnings.push(unknownFact(field, instanceType, 'vCPUs'));
    else {
      issues.push(
        ...overBudget(copiesField, counts, perCopy.cpuCores, spec.vcpus, {
          unit: 'CPU cores',
          instanceType,
          of: 'vCPUs',
        }),
      );
    }
  }
  if (spec.memoryGiB === undefined) warnings.push(unknownFact(field, instanceType, 'memory'));
  else {
    issues.push(
      ...overBudget(copiesField, counts, perCopy.minMemoryMb, spec.memoryGiB * 1024, {
        unit: 'MB of minimum memory',
        instanceType,
        of: 'MB of memory',
      }),
    );
  }
  return { issues, warnings };
}

/** One issue for the counts whose total need exceeds the instance's figure, largest first. */
function overBudget(
  field: string,
  counts: readonly number[],
  perCopy: number,
  available: number,
  words: { readonly unit: string; readonly instanceType: string; readonly of?: string },
): InputIssue[] {
  const over = counts.filter((count) => count * perCopy > available);
  if (over.length === 0) return [];
  const fitting = Math.floor(available / perCopy);
  const products = over
    .map((count) => `${count} copies × ${perCopy} ${words.unit} = ${count * perCopy}`)
    .join(', ');
  return [
    {
      field,
      given: over.length === 1 ? String(over[0]) : JSON.stringify(over),
      expected:
        `copies that fit one ${words.instanceType}: ${products} > the ${available} ${words.of ?? words.unit} ` +
        `of ${words.instanceType}; ${fitsAtMost(fitting)}`,
    },
  ];
}

function fitsAtMost(fitting: number): string {
  if (fitting === 0) return 'not one copy fits: fewer resources per copy, or a larger instance';
  const copies = fitting === 1 ? 'copy' : 'copies';
  return `at most ${fitting} ${copies} per instance, or fewer resources per copy, or a larger instance`;
}

function unknownFact(field: string, instanceType: string, fact: string): string {
  return `${field}: the catalog does not know the ${fact} of ${instanceType}; its copies per instance are not checked against them`;
}
