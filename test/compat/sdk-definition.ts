/**
 * The SaaSus SDKs' published OpenAPI definition of the Auth API (saasus-auth-api.yml, README.md beside it says
 * where it comes from), read as the SDKs' models see it: every operation's method, path and success response
 * model, and a checker that holds an answer against a model field by field and type by type (required
 * members, types, enums, nullable, nested objects, arrays and maps), as the generated Go structs, Python
 * pydantic models and TypeScript types parse it. Members a model does not name are allowed: the SDKs ignore
 * them.
 */
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';

export interface Schema {
  $ref?: string;
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
  enum?: unknown[];
  nullable?: boolean;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  discriminator?: { propertyName: string; mapping?: Record<string, string> };
}

export interface SdkOperation {
  operationId: string;
  method: string;
  /** As in the definition, relative to /v1/auth: `/users/{user_id}`. */
  path: string;
  /** The success status the definition names (200 or 201), or its only status (500 for the error-test route). */
  status: number;
  /** The model of that answer; undefined when it has no body. */
  response?: Schema;
}

interface Definition {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
  components: { schemas: Record<string, Schema> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

interface Additions {
  paths: Definition['paths'];
  components: Definition['components'];
  members: Record<string, { properties: Record<string, Schema>; required?: string[] }>;
}

const read = <T>(name: string) => load(readFileSync(new URL(name, import.meta.url), 'utf8')) as T;

/**
 * The published definition with what issue 25 adds that no published definition stored here has yet
 * (saasus-auth-api.additions.yml): its operations, models, and members of existing models.
 */
function withAdditions(published: Definition, additions: Additions): Definition {
  const schemas = { ...published.components.schemas, ...additions.components.schemas };
  for (const [name, extra] of Object.entries(additions.members)) {
    const model = schemas[name];
    if (!model) throw new Error(`the definition has no schema ${name} to add members to`);
    const members: Schema = { type: 'object', properties: extra.properties, ...(extra.required ? { required: extra.required } : {}) };
    schemas[name] = model.$ref || model.allOf ? { allOf: [...(model.allOf ?? [{ $ref: model.$ref }]), members] } : mergeMembers(model, members);
  }
  const paths = { ...published.paths };
  for (const [path, item] of Object.entries(additions.paths)) paths[path] = { ...paths[path], ...item };
  return { paths, components: { schemas } };
}

function mergeMembers(model: Schema, members: Schema): Schema {
  return {
    ...model,
    properties: { ...model.properties, ...members.properties },
    required: [...(model.required ?? []), ...(members.required ?? [])],
  };
}

export const publishedDefinition = read<Definition>('./saasus-auth-api.yml');
export const definition = withAdditions(publishedDefinition, read<Additions>('./saasus-auth-api.additions.yml'));

function operationsOf(within: Definition): SdkOperation[] {
  return Object.entries(within.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => {
        const status = Number(Object.keys(op.responses).find((code) => code.startsWith('2')) ?? Object.keys(op.responses)[0]);
        const response = op.responses[String(status)]?.content?.['application/json']?.schema;
        return { operationId: op.operationId, method: method.toUpperCase(), path, status, ...(response ? { response } : {}) };
      }),
  );
}

export const sdkOperations: SdkOperation[] = operationsOf(definition);

/** Another of the SDKs' definitions kept beside this file (the Pricing and Billing APIs'): its operations, and a checker against its models. */
export interface SdkDefinition {
  definition: Definition;
  sdkOperations: SdkOperation[];
  /** Where `value` breaks `schema`, one line per problem; [] when it fits. */
  modelProblems(schema: Schema, value: unknown, at?: string): string[];
  /**
   * Calls the operation as the SDKs do (its method and path, `params` in the path, `query` after it) through
   * `send`, and answers its body and what an SDK could not use of the answer ('' when nothing).
   */
  callAsSdk(
    send: (method: string, path: string, body: unknown) => Promise<{ status: number; body: unknown; text: string }>,
    operationId: string,
    call: { params?: Record<string, string>; query?: string; body?: unknown },
  ): Promise<{ body: unknown; failure: string }>;
}

export function readSdkDefinition(fileName: string): SdkDefinition {
  const within = read<Definition>(`./${fileName}`);
  const sdkOps = operationsOf(within);
  const modelProblems = (schema: Schema, value: unknown, at = '$') => problemsIn(within, schema, value, at);
  return {
    definition: within,
    sdkOperations: sdkOps,
    modelProblems,
    async callAsSdk(send, operationId, { params = {}, query, body }) {
      const op = sdkOps.find((o) => o.operationId === operationId);
      if (!op) throw new Error(`the definition has no operation ${operationId}`);
      const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? `missing-${name}`));
      const res = await send(op.method, `${path}${query ? `?${query}` : ''}`, body);
      const problems =
        res.status === op.status
          ? op.response
            ? modelProblems(op.response, res.body)
            : []
          : [`status ${res.status}, the SDK expects ${op.status}: ${res.text}`];
      const model = op.response ? modelName(op.response) : 'none';
      return {
        body: res.body,
        failure: problems.length ? `${op.method} ${op.path} (${operationId}, model ${model}):\n    ${problems.join('\n    ')}` : '',
      };
    },
  };
}
/** A `$ref` of `within`'s components, followed to the model it names. */
function resolveIn(within: Definition, schema: Schema): Schema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const target = within.components.schemas[name];
  if (!target) throw new Error(`the definition has no schema ${name}`);
  return resolveIn(within, target);
}

/** The model's name for messages: the last part of a $ref. */
export const modelName = (schema: Schema) => schema.$ref?.split('/').pop() ?? '(inline)';

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Where `value` breaks `schema`, one line per problem, naming the path (`$.tenants[0].plan_id`); [] when it fits. */
export function modelProblems(schema: Schema, value: unknown, at = '$'): string[] {
  return problemsIn(definition, schema, value, at);
}

function problemsIn(within: Definition, schema: Schema, value: unknown, at: string): string[] {
  const modelProblems = (inner: Schema, v: unknown, path: string) => problemsIn(within, inner, v, path);
  const model = resolveIn(within, schema);
  if (value === null) return model.nullable ? [] : [`${at}: null, but the model does not allow null`];
  if (model.allOf) return model.allOf.flatMap((part) => modelProblems(part, value, at));
  // The generated clients pick a oneOf's alternative by its discriminator (the Python SDK's PricingUnit does).
  if (model.discriminator) {
    const tag = typeOf(value) === 'object' ? (value as Record<string, unknown>)[model.discriminator.propertyName] : undefined;
    const chosen = typeof tag === 'string' ? model.discriminator.mapping?.[tag] : undefined;
    if (!chosen) return [`${at}.${model.discriminator.propertyName}: ${JSON.stringify(tag)} names none of the model's alternatives`];
    return modelProblems({ $ref: chosen }, value, at);
  }
  for (const choices of [model.oneOf, model.anyOf]) {
    if (choices && !choices.some((choice) => modelProblems(choice, value, at).length === 0)) return [`${at}: fits none of its alternatives`];
  }
  const actual = typeOf(value);
  if (model.type) {
    const fits = model.type === actual || (model.type === 'number' && actual === 'integer');
    if (!fits) return [`${at}: ${actual}, the model says ${model.type}`];
  }
  if (model.enum && !model.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(model.enum)}`];
  const problems: string[] = [];
  if (actual === 'array' && model.items) {
    (value as unknown[]).forEach((item, i) => problems.push(...modelProblems(model.items as Schema, item, `${at}[${i}]`)));
  }
  if (actual === 'object') {
    const object = value as Record<string, unknown>;
    for (const name of model.required ?? []) if (!(name in object)) problems.push(`${at}.${name}: missing, the model requires it`);
    for (const [name, property] of Object.entries(model.properties ?? {})) {
      if (name in object) problems.push(...modelProblems(property, object[name], `${at}.${name}`));
    }
    if (typeof model.additionalProperties === 'object') {
      for (const [name, member] of Object.entries(object)) {
        if (!(name in (model.properties ?? {}))) problems.push(...modelProblems(model.additionalProperties, member, `${at}.${name}`));
      }
    }
  }
  return problems;
}
