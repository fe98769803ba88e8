/**
 * One check for every caller of a request schema. A route validates its body
 * and query through Elysia, which compiles the route's `t` schemas; a caller
 * that does not come through HTTP (a find in an `/ingest` batch, a log sent
 * over the radio, the CLI) calls `check` with the same schema. Both word a
 * failure alike (`describeFailure`):
 *
 *   body.name: Expected string length less or equal to 100
 *   finds.0.kind: must be one of find, dnf, note, ...
 *   body.colour: unknown field "colour"; it takes kind, name, lat, lon, note
 *
 * Object schemas are closed (`closed`): a member the schema does not declare
 * is refused by name, so a typo is not dropped in silence, and no service
 * repeats the list of its fields by hand.
 */
import { type NumberOptions, type Static, type TObject, type TProperties, type TSchema, Type, type ObjectOptions } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Value, ValueErrorType } from "@sinclair/typebox/value";
import { AppError } from "./errors.ts";

/** An object schema that refuses members it does not declare. */
export const closed = <P extends TProperties>(properties: P, options?: ObjectOptions): TObject<P> =>
  Type.Object(properties, { ...options, additionalProperties: false });

/**
 * A whole number in a JSON body, as a JSON number only: `t.Integer` in a
 * route would also take the string "5" and convert it.
 */
export const wholeNumber = (o: NumberOptions = {}) => Type.Number({ multipleOf: 1, ...o });

/** A value or null. */
export const nullable = <T extends TSchema>(schema: T, description?: string) => Type.Union([schema, Type.Null()], description ? { description } : {});

/**
 * True when a schema's static type and a type written elsewhere (a library's,
 * the decoder's) are the same both ways: `const same: Same<Static<typeof X>, T> = true`
 * makes the compiler refuse a drift of either.
 */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** An instant in an answer: whole unix milliseconds. */
export const unixMs = (description = "unix ms") => wholeNumber({ description });

/** What a validator reports of one failure (TypeBox's ValueError, as Elysia passes it on with its `summary`). */
export interface FailureLike {
  type?: number;
  path?: string;
  message?: string;
  summary?: string;
  schema?: unknown;
  /** the value that failed: undefined for a member left out (JSON has no undefined) */
  value?: unknown;
  /** a union's failures, one iterator a member (TypeBox) */
  errors?: Array<{ First(): FailureLike | undefined }>;
}

type SchemaLike =
  | {
      anyOf?: Array<{ const?: unknown }>;
      properties?: Record<string, unknown>;
      description?: string;
      maxLength?: number;
      minLength?: number;
      maximum?: number;
      minimum?: number;
    }
  | undefined;

/**
 * A value that fails every member of a union (an object or null, a text or a
 * number) fails where it went furthest: an object with an unknown member is
 * refused for that member, not for not being null.
 */
function deepest(first: FailureLike): FailureLike {
  if (first.type !== ValueErrorType.Union || !first.errors?.length) return first;
  // deeper first; at the same depth a member of the value's own kind (a number out of range, not "expected null")
  const score = (e: FailureLike) => (e.path?.length ?? 0) * 2 + (KIND_ERRORS.has(e.type ?? -1) ? 0 : 1);
  let best: FailureLike | null = null;
  for (const member of first.errors) {
    const e = member.First();
    if (e && (!best || score(e) > score(best))) best = e;
  }
  return best && score(best) > (first.path?.length ?? 0) * 2 ? deepest(best) : first;
}

/** Failures that say only that the value is of another kind. */
const KIND_ERRORS = new Set<number>([
  ValueErrorType.Array,
  ValueErrorType.Boolean,
  ValueErrorType.Integer,
  ValueErrorType.Literal,
  ValueErrorType.Null,
  ValueErrorType.Number,
  ValueErrorType.Object,
  ValueErrorType.String,
  ValueErrorType.Union,
]);

export interface Failure {
  error: "invalid" | "bad_body";
  message: string;
  field: string;
}

/** What is wrong with a value, in words a user reads (the validator's own summary where none is written here). */
function wording(first: FailureLike, schema: SchemaLike): string {
  // a choice of fixed values says the values (the validator's own summary says only "'string', 'string', ...")
  if (schema?.anyOf?.length && schema.anyOf.every((s) => s.const !== undefined)) return `must be one of ${schema.anyOf.map((s) => String(s.const)).join(", ")}`;
  switch (first.type) {
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return `must be at most ${schema?.maximum}`;
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return `must be at least ${schema?.minimum}`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${schema?.maxLength} characters`;
    case ValueErrorType.StringMinLength:
      return `must be at least ${schema?.minLength} characters`;
    case ValueErrorType.StringPattern:
      if (schema?.description) return `must be ${schema.description}`;
  }
  return first.summary ?? first.message ?? "invalid";
}

/** The one wording of a failed check; `where` is what was checked ("body", "query", "finds.3"). */
export function describeFailure(where: string, failure: FailureLike | undefined): Failure {
  if (!failure) return { error: "invalid", message: `${where} is invalid`, field: where };
  const first = deepest(failure);
  const schema = first.schema as SchemaLike;
  // a JSON pointer's segments, unescaped (~1 is /, ~0 is ~)
  const segments = first.path
    ? first.path
        .replace(/^\//, "")
        .split("/")
        .map((k) => k.replaceAll("~1", "/").replaceAll("~0", "~"))
    : [];
  const sub = segments.join(".");
  const field = sub ? `${where}.${sub}` : where;
  if (first.type === ValueErrorType.ObjectAdditionalProperties) {
    const name = segments.at(-1) ?? "";
    const known = Object.keys(schema?.properties ?? {});
    return { error: "invalid", message: `${field}: unknown field "${name}"; ${known.length ? `it takes ${known.join(", ")}` : "it takes no fields"}`, field };
  }
  // a member left out: JSON has no undefined, so a missing value is one the body did not send
  const missing = first.type === ValueErrorType.ObjectRequiredProperty || (sub !== "" && "value" in first && first.value === undefined);
  const what = missing ? "is required" : wording(first, schema);
  if (!sub && where === "body") return { error: "bad_body", message: `body: ${what}`, field };
  return { error: "invalid", message: `${field}: ${what}`, field };
}

/** Compiled once per schema where the runtime may generate code; workerd may not, and checks by interpretation. */
const compiled = new WeakMap<TSchema, TypeCheck<TSchema> | null>();
function compiledOf(schema: TSchema): TypeCheck<TSchema> | null {
  let c = compiled.get(schema);
  if (c === undefined) {
    try {
      c = TypeCompiler.Compile(schema);
    } catch {
      c = null;
    }
    compiled.set(schema, c);
  }
  return c;
}

/** `value` as the schema's type, or a 400 naming the first field that fails (as a route's own validation does). */
export function check<T extends TSchema>(schema: T, value: unknown, where = "body"): Static<T> {
  const c = compiledOf(schema);
  if (c ? c.Check(value) : Value.Check(schema, value)) return value as Static<T>;
  const first = (c ? c.Errors(value) : Value.Errors(schema, value)).First();
  const f = describeFailure(where, first);
  throw new AppError(400, f.error, f.message, { field: f.field });
}
