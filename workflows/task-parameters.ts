import type { IFunction } from 'aws-cdk-lib/aws-lambda';

/**
 * Typed Task payloads: the Parameters a Task state gives a step Lambda are checked by `tsc` against
 * the event its core function takes (OptimizationStepEvents, AsyncInferenceStepEvents), so a
 * misspelt, missing or mistyped field fails the type-check instead of a run. Types only: the
 * synthesized definitions are the same as with untyped payloads.
 */

/**
 * A reference path Step Functions resolves in Parameters: into the state (`$`, `$.plan`) or the
 * context object (`$$.Execution.Name`) ("Parameters", Step Functions developer guide,
 * https://docs.aws.amazon.com/step-functions/latest/dg/input-output-inputpath-params.html).
 */
export type JsonPath = `$${string}`;

/** Where a step Lambda carries its event type: no value has it, a `StepFunction<E>` is any IFunction. */
declare const STEP_EVENT: unique symbol;

/**
 * A step Lambda typed with the event its Task must build. Any `IFunction` is one (the marker is an
 * optional, type-only member); the workflow construct's props give each step its event by the
 * registry, and `lambdaStep` reads the event back from the function it invokes. The event is an
 * input, so the marker is too: a function of `A` serves where a Task builds `A & B`.
 */
export type StepFunction<Event> = IFunction & { readonly [STEP_EVENT]?: (event: Event) => void };

/**
 * The step Lambdas of a workflow by their keys in its registry, each typed with its event: a key
 * without an event in `Events` fails the constraint, naming the key.
 */
export type StepFunctions<Key extends keyof Events, Events> = {
  readonly [K in Key]: StepFunction<Events[K]>;
};

/**
 * The Parameters a Task gives a step whose event is `Event`, as a check of the Parameters written
 * (`Given`): each key is either a field of the event with a value of its type (an object's fields
 * again in either form) or `field.$` with a JsonPath; every required field is there in one of the
 * two forms, and nothing else is. A key that is not a field has the type `never`; a missing field
 * is reported as its `field.$` form. An event that is a union (e.g. a step with an `action`) takes
 * the Parameters of any one of its members.
 *
 * Used as `Given & TaskParameters<Event, Given>` with `Given` inferred from the literal, which
 * keeps the literal's own types (`action: 'apply'`) and lets the error name the key at fault.
 */
export type TaskParameters<Event, Given> = Event extends unknown ? ParametersOf<Event, Given> : never;

type ParametersOf<Event, Given> = {
  readonly [Key in keyof Given]: Key extends `${infer Field}.$`
    ? Field extends keyof Event
      ? Field extends keyof Given
        ? never
        : JsonPath
      : never
    : Key extends keyof Event
      ? ValueOf<Event[Key], Given[Key]>
      : never;
} & { readonly [Field in MissingFields<Event, Given> as `${Field}.$`]: JsonPath };

/** A field given as a value: an object's fields are Parameters again (they may hold paths); the rest as typed. */
type ValueOf<Field, Given> = Given extends readonly unknown[]
  ? Field
  : Given extends object
    ? NonNullable<Field> extends object
      ? TaskParameters<NonNullable<Field>, Given>
      : Field
    : Field;

/** The required fields of the event that the Parameters give in neither form. */
type MissingFields<Event, Given> = Exclude<RequiredFields<Event>, keyof Given | PathFields<keyof Given>>;

type RequiredFields<Event> = {
  [Field in keyof Event]-?: object extends Pick<Event, Field> ? never : Field;
}[keyof Event] &
  string;

type PathFields<Key> = Key extends `${infer Field}.$` ? Field : never;

/**
 * A Task's payload for a step whose event is `Event`: Parameters checked against the event, or
 * one JsonPath whose value is the whole event (it becomes the Task's InputPath, see `lambdaStep`),
 * which only a run can check.
 */
export type TaskPayload<Event, Given> = JsonPath | (Given & TaskParameters<Event, Given>);
