/**
 * Requests for the routes of the route table, generated from each operation's schema (schema-arbitrary.ts),
 * for the request fuzz and the isolation sweep; and what both check of an answer.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { BatchWriteCommand, ScanCommand } from '../shared/store/dynamo-client.js';
import { Type, type TSchema } from '@sinclair/typebox';
import type { OperationSchema } from '../shared/schemas/operation.js';
import { fullPath, pathParamNames, type Route } from '../shared/routes.js';
import { OPERATION_SCHEMAS } from '../shared/schemas/index.js';
import { dynamo, tableName } from '../shared/wiring.js';
import { apiLogKeys, eventKeys, signInCountsKeys } from '../shared/store/keys.js';
import { arbitraryOf, type Pools } from './schema-arbitrary.js';

/** Who signs: the SaaS's full key, a narrow one, nobody, or a forger. */
export type Signing = 'full' | 'narrow' | 'unsigned' | 'tampered' | 'otherSaas';

export interface RouteRequest {
  route: Route;
  method: string;
  /** Path parameters, already as they go in the URL (encoded, or hostile on purpose). */
  params: Record<string, string>;
  /** The raw query, without `?`. */
  query: string;
  body?: { json: unknown } | { raw: string | Buffer };
  headers: Record<string, string>;
  signing: Signing;
  /** What was twisted, for the report; 'none' for a request as its schema describes it. */
  mutation: string;
}

export const schemaOf = (route: Route): OperationSchema => OPERATION_SCHEMAS[route.operationId] ?? {};
/** From the root (`/v1/pricing/...`): the routes of every API. */
export const pathOf = (req: RouteRequest) => fullPath(req.route).replace(/\{([^}]+)\}/g, (_, name: string) => req.params[name] ?? '');
export const urlOf = (req: RouteRequest) => pathOf(req) + (req.query ? `?${req.query}` : '');

export function bodyText(req: RouteRequest): string | Buffer | undefined {
  if (!req.body) return undefined;
  return 'json' in req.body ? JSON.stringify(req.body.json) : req.body.raw;
}

export const clip = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text);

export function describeRequest(req: RouteRequest): string {
  const body = bodyText(req);
  const shown = body === undefined ? '' : ` ${clip(Buffer.isBuffer(body) ? `<${body.length} bytes>` : body)}`;
  return `[${req.mutation}; ${req.signing}] ${req.method} ${clip(urlOf(req))}${shown}`;
}

function toQuery(value: unknown): string {
  return Object.entries(value as Record<string, unknown>)
    .map(([name, v]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(v))}`)
    .join('&');
}

const ANY_SEGMENT = Type.String({ minLength: 1, maxLength: 40 });

/** Requests for the route as its schema describes them, with values drawn from `pools` where there are some. */
export function routeRequest(route: Route, pools: Pools): fc.Arbitrary<RouteRequest> {
  const schema = schemaOf(route);
  const params = fc.record(
    Object.fromEntries(
      pathParamNames(route.path).map((name) => [
        name,
        arbitraryOf((schema.params?.properties[name] as TSchema | undefined) ?? ANY_SEGMENT, pools, name).map((v) => encodeURIComponent(String(v))),
      ]),
    ),
  );
  const query = schema.query ? arbitraryOf(schema.query, pools).map(toQuery) : fc.constant('');
  const body = schema.body ? arbitraryOf(schema.body, pools).map((json) => ({ json })) : fc.constant(undefined);
  return fc.record({ params, query, body }).map(({ params: p, query: q, body: b }): RouteRequest => ({
    route,
    method: route.method,
    params: p as Record<string, string>,
    query: q,
    ...(b ? { body: b } : {}),
    headers: {},
    signing: route.permission === null ? 'unsigned' : 'full',
    mutation: 'none',
  }));
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The error body every refusal carries: {type, message, data}. */
export function isErrorBody(body: unknown): boolean {
  return isPlainObject(body) && typeof body.type === 'string' && body.type !== '' && typeof body.message === 'string' && isPlainObject(body.data);
}

/**
 * Deletes what every call leaves in the table, its API log record and the event of a changing call: a sweep of
 * thousands of signed calls leaves as many, which a test that reads the whole table back after each request need
 * not scan again and again.
 */
export async function clearCallRecords(): Promise<void> {
  let start: Record<string, unknown> | undefined;
  do {
    const out = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        ExclusiveStartKey: start,
        ProjectionExpression: 'pk, sk',
        FilterExpression: 'contains(pk, :apilog) OR contains(pk, :events)',
        ExpressionAttributeValues: { ':apilog': '#APILOG#', ':events': '#EVENT' },
      }),
    );
    const found = (out.Items ?? []).filter(
      (item) => apiLogKeys.isPartition(String(item.pk)) || eventKeys.isCallRecord(String(item.pk), String(item.sk)),
    );
    for (let i = 0; i < found.length; i += 25) {
      let requests: Record<string, unknown>[] | undefined = found
        .slice(i, i + 25)
        .map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
      while (requests && requests.length > 0) {
        const written = await dynamo().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
        requests = written.UnprocessedItems?.[tableName()] as Record<string, unknown>[] | undefined;
      }
    }
    start = out.LastEvaluatedKey;
  } while (start);
}

/**
 * The items of the test's own table (those whose partition key starts with `pkPrefix`, or all, and leaving
 * out those whose sort key `skip` names), in key order, hashed. A test may read its own database whole;
 * service code never scans.
 */
export async function tableDigest(pkPrefix = '', skip: (sortKey: string) => boolean = () => false): Promise<string> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        ConsistentRead: true,
        ExclusiveStartKey: start,
        ...(pkPrefix ? { FilterExpression: 'begins_with(pk, :prefix)', ExpressionAttributeValues: { ':prefix': pkPrefix } } : {}),
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  const canonical = items
    // The API log records every signed call, refused or not, the events number and keep every changing one, and the
    // sign-in counts every refused password: none is the data an operation keeps, and all are written a moment after
    // the call (local/line-sink.ts).
    .filter((item) => {
      const [pk, sk] = [String(item.pk), String(item.sk)];
      return !skip(sk) && !apiLogKeys.isPartition(pk) && !signInCountsKeys.isPartition(pk) && !eventKeys.isCallRecord(pk, sk);
    })
    .map((item) => JSON.stringify(item, (_, v: unknown) => (v instanceof Set ? [...v].sort() : v)))
    .sort()
    .join('\n');
  return createHash('sha256').update(canonical).digest('hex');
}
