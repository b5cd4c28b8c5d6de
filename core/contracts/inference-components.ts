import { z } from 'zod';

/**
 * Inference components: a model hosted on an endpoint's instances as copies, each copy with the
 * CPU cores, accelerator devices and memory it reserves (SageMaker API reference,
 * CreateInferenceComponent, https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateInferenceComponent.html,
 * and InferenceComponentComputeResourceRequirements,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_InferenceComponentComputeResourceRequirements.html).
 * The bounds below are the SageMaker API model's (aws/api-models-aws, sagemaker-2017-07-24.json):
 * `NumberOfCpuCores` a float of at least 0.25, `NumberOfAcceleratorDevices` at least 1, `MemoryInMb`
 * an integer of at least 128, `InferenceComponentCopyCount` an integer of at least 0.
 */

/** SageMaker's `InferenceComponentStatus` (DescribeInferenceComponent). */
export const InferenceComponentStatuses = {
  inService: 'InService',
  creating: 'Creating',
  updating: 'Updating',
  failed: 'Failed',
  deleting: 'Deleting',
} as const;
export type InferenceComponentStatus =
  (typeof InferenceComponentStatuses)[keyof typeof InferenceComponentStatuses];

export const COMPONENT_BOUNDS = {
  /** `NumberOfCpuCores`: `smithy.api#range` min 0.25. */
  minCpuCores: 0.25,
  /** `MemoryInMb`: `smithy.api#range` min 128. */
  minMemoryMb: 128,
  /** `NumberOfAcceleratorDevices`: `smithy.api#range` min 1. */
  minAcceleratorDevices: 1,
  /**
   * The values one sweep may list: each is a candidate of its own (deployed, measured and deleted),
   * so a sweep counts against the run's candidate limit; six covers 1, 2, 4, 8, 16, 32.
   */
  maxSweepValues: 6,
} as const;

/** What one copy reserves on an instance (`Specification.ComputeResourceRequirements`). */
export const perCopySchema = z
  .strictObject({
    /** `NumberOfCpuCoresRequired`; SageMaker takes fractions of a core. */
    cpuCores: z
      .number()
      .min(COMPONENT_BOUNDS.minCpuCores, { message: 'at least 0.25 CPU cores (NumberOfCpuCoresRequired)' })
      .optional(),
    /**
     * `NumberOfAcceleratorDevicesRequired` (GPUs, or Inferentia devices). Whole devices: a copy
     * cannot share a device with another copy.
     */
    acceleratorDevices: z
      .int()
      .min(COMPONENT_BOUNDS.minAcceleratorDevices, {
        message: 'a whole number of accelerator devices, at least 1 (NumberOfAcceleratorDevicesRequired)',
      })
      .optional(),
    /** `MinMemoryRequiredInMb`: required by SageMaker. */
    minMemoryMb: z.int().min(COMPONENT_BOUNDS.minMemoryMb, {
      message: 'a whole number of MB, at least 128 (MinMemoryRequiredInMb)',
    }),
    /** `MaxMemoryRequiredInMb`. */
    maxMemoryMb: z
      .int()
      .min(COMPONENT_BOUNDS.minMemoryMb, {
        message: 'a whole number of MB, at least 128 (MaxMemoryRequiredInMb)',
      })
      .optional(),
  })
  .superRefine((value, context) => {
    if (value.maxMemoryMb !== undefined && value.maxMemoryMb < value.minMemoryMb) {
      context.addIssue({
        code: 'custom',
        path: ['maxMemoryMb'],
        input: value.maxMemoryMb,
        message: `at least minMemoryMb (${value.minMemoryMb}): a copy's memory ceiling cannot be below its floor`,
      });
    }
  });

/**
 * Copies per instance: a fixed count, or a sweep (distinct counts in ascending order), each count
 * a candidate of its own.
 */
export const copiesSchema = z.union(
  [
    z.int().min(1),
    z
      .array(z.int().min(1))
      .min(1)
      .max(COMPONENT_BOUNDS.maxSweepValues)
      .refine((values) => values.every((value, index) => index === 0 || value > (values[index - 1] ?? 0)), {
        message: 'distinct copy counts in ascending order, e.g. [1, 2, 4]',
      }),
  ],
  {
    message: `a copy count per instance (1 or more), or a sweep of up to ${COMPONENT_BOUNDS.maxSweepValues} such as [1, 2, 4]`,
  },
);

/** A candidate served by an inference component: how many copies per instance, and what each needs. */
export const componentRequestSchema = z.strictObject({
  copies: copiesSchema,
  perCopy: perCopySchema,
});

export type PerCopyRequirements = z.infer<typeof perCopySchema>;
export type ComponentRequest = z.infer<typeof componentRequestSchema>;

/** The copy counts a request stands for: the fixed count alone, or every value of the sweep. */
export function copyCountsOf(request: ComponentRequest): readonly number[] {
  return typeof request.copies === 'number' ? [request.copies] : request.copies;
}

/**
 * One inference component as a candidate deploys it: the component's name, the variant that hosts
 * it, copies per instance and in all (`RuntimeConfig.CopyCount`: SageMaker places the copies over
 * the variant's instances), and what each copy reserves.
 */
export interface PlannedComponent {
  readonly inferenceComponentName: string;
  readonly variantName: string;
  readonly copiesPerInstance: number;
  readonly copyCount: number;
  readonly perCopy: PerCopyRequirements;
}
