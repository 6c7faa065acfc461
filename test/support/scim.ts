/** A SCIM client as a directory is one: a base URL and a bearer token of one tenant, JSON in and out. */
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';

export interface ScimAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export interface ScimClient {
  base: string;
  token: string;
  call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<ScimAnswer<T>>;
}

export function scimClient(base: string, token: string): ScimClient {
  return {
    base,
    token,
    async call(method, path, body) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json', accept: 'application/scim+json' },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : {}, headers: res.headers };
    },
  };
}

/** Turns SCIM on for a tenant through the API's extension, as the setup page does: its URL and a new token. */
export async function turnScimOn(api: SignedClient, tenantId: string): Promise<ScimClient & { tokenId: string }> {
  const res = await api.post<{ id: string; token: string; base_url: string }>(`/tenants/${tenantId}/scim/tokens`, {});
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { ...scimClient(res.body.base_url, res.body.token), tokenId: res.body.id };
}

export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
