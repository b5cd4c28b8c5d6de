import { expect } from '@jest/globals';
import { InvalidRunInputError } from '../../../../../core/contracts/errors.js';
import {
  validateAndPlan,
  type ValidateAndPlanDeps,
} from '../../../../../core/steps/optimization/validate-and-plan.js';

/** The error "Validate and plan" refuses `input` with; fails the test when it plans instead. */
export async function planRefusal(
  input: unknown,
  dependencies: ValidateAndPlanDeps,
): Promise<InvalidRunInputError> {
  const error = await validateAndPlan({ runId: 'run-1', input }, dependencies).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InvalidRunInputError);
  return error as InvalidRunInputError;
}
