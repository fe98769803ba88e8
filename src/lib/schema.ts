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
import { type Static, type TObject, type TProperties, type TSchema, Type, type ObjectOptions } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Value, ValueErrorType } from "@sinclair/typebox/value";
import { AppError } from "./errors.ts";

/** An object schema that refuses members it does not declare. */
export const closed = <P extends TProperties>(properties: P, options?: ObjectOptions): TObject<P> =>
  Type.Object(properties, { ...options, additionalProperties: false });

/** What a validator reports of one failure (TypeBox's ValueError, as Elysia passes it on with its `summary`). */
export interface FailureLike {
  type?: number;
  path?: string;
  message?: string;
  summary?: string;
  schema?: unknown;
}

type SchemaLike = { anyOf?: Array<{ const?: unknown }>; properties?: Record<string, unknown> } | undefined;

export interface Failure {
  error: "invalid" | "bad_body";
  message: string;
  field: string;
}

/** The one wording of a failed check; `where` is what was checked ("body", "query", "finds.3"). */
export function describeFailure(where: string, first: FailureLike | undefined): Failure {
  if (!first) return { error: "invalid", message: `${where} is invalid`, field: where };
  const schema = first.schema as SchemaLike;
  const sub = first.path ? first.path.replace(/^\//, "").replaceAll("/", ".").replaceAll("~1", "/").replaceAll("~0", "~") : "";
  const field = sub ? `${where}.${sub}` : where;
  if (first.type === ValueErrorType.ObjectAdditionalProperties) {
    const name = first.path?.split("/").at(-1)?.replaceAll("~1", "/").replaceAll("~0", "~") ?? "";
    const known = Object.keys(schema?.properties ?? {});
    return { error: "invalid", message: `${field}: unknown field "${name}"; ${known.length ? `it takes ${known.join(", ")}` : "it takes no fields"}`, field };
  }
  // a choice of fixed values says the values (the validator's own summary says only "'string', 'string', ...")
  const choices = schema?.anyOf?.length && schema.anyOf.every((s) => s.const !== undefined) ? schema.anyOf.map((s) => String(s.const)) : null;
  const what = choices ? `must be one of ${choices.join(", ")}` : (first.summary ?? first.message ?? "invalid");
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
