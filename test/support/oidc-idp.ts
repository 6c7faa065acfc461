/**
 * A tenant's OpenID Connect provider for the tests: `oidc-provider` (the certified implementation from npm)
 * on 127.0.0.1, standing in for Okta or Microsoft Entra ID. The person who signs in is chosen in advance
 * (`signInAs`), so a browser, or a test following redirects, passes its interaction without a form.
 *
 * What a real provider might do wrong, or an attacker holding one of its keys might try, the tests make it do:
 * `rotateKeys` signs with a new key from then on (and publishes only it), and `tamper` rewrites the next ID
 * tokens' claims, signed again with the provider's key (or a key it never published).
 *
 * Quiet: oidc-provider prints a warning or notice for each default a production provider should set (its
 * in-memory storage, the lifetimes of what it issues) and for a Node release before 22. The provider here sets them
 * (its own storage, the defaults' lifetimes written out), and only the runtime line, which no setting can answer
 * on the tests' Node 20, is dropped when the library loads: any other warning still reaches the test's output.
 */
import { generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader, importJWK, SignJWT, type JWTPayload } from 'jose';
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

export interface IdpPerson {
  sub: string;
  email: string;
  name?: string;
  groups?: string[];
}

export interface Tamper {
  claims(claims: JWTPayload): JWTPayload;
  /** Signed with a key the provider never published (under its current kid). */
  foreignKey?: boolean;
}

export interface TestOidcIdp {
  issuer: string;
  /** The discovery document's URL, as an administrator copies it from the provider's console. */
  discoveryUrl: string;
  clientId: string;
  clientSecret: string;
  signInAs(person: IdpPerson): void;
  rotateKeys(): void;
  tamper(next: Tamper | undefined): void;
  /** The kid the provider signs with now. */
  readonly kid: string;
  close(): Promise<void>;
}

const newKey = (kid: string) => ({
  ...(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as JsonWebKey),
  kid,
  alg: 'RS256',
  use: 'sig',
});

/** oidc-provider, loaded with its one line about the Node release dropped (and nothing else). */
/* eslint-disable no-console -- the library prints that line with console.warn, the one place to catch it */
async function loadProvider() {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes('oidc-provider WARNING: Unsupported runtime')) warn(...args);
  };
  try {
    return (await import('oidc-provider')).default;
  } finally {
    console.warn = warn;
  }
}
/* eslint-enable no-console */

/** One provider's storage, kept across its rebuilds (rotateKeys): what oidc-provider's in-memory adapter keeps. */
function memoryStorage(): AdapterFactory {
  const items = new Map<string, AdapterPayload>();
  const sessionsByUid = new Map<string, string>();
  return (model): Adapter => {
    const key = (id: string) => `${model}:${id}`;
    const find = async (id: string) => items.get(key(id));
    return {
      upsert: async (id, payload) => {
        items.set(key(id), payload);
        if (model === 'Session' && payload.uid) sessionsByUid.set(payload.uid, id);
      },
      find,
      findByUid: async (uid) => {
        const id = sessionsByUid.get(uid);
        return id === undefined ? undefined : find(id);
      },
      findByUserCode: async () => undefined,
      consume: async (id) => {
        const payload = items.get(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => {
        items.delete(key(id));
      },
      revokeByGrantId: async (grantId) => {
        for (const [name, payload] of items) if (payload.grantId === grantId) items.delete(name);
      },
    };
  };
}

/** oidc-provider's default lifetimes, in seconds, set so that it does not ask for them. */
const HOUR = 60 * 60;
const TTL = { AccessToken: HOUR, AuthorizationCode: 60, IdToken: HOUR, Interaction: HOUR, Session: 14 * 24 * HOUR, Grant: 14 * 24 * HOUR };

export async function startTestOidcIdp(options: { redirectUris: string[]; name?: string }): Promise<TestOidcIdp> {
  const Provider = await loadProvider();
  const adapter = memoryStorage();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = `${options.name ?? 'acme'}-client`;
  const clientSecret = `${options.name ?? 'acme'}-secret-0123456789abcdef`;
  let person: IdpPerson | undefined;
  let tamper: Tamper | undefined;
  let generation = 1;
  let key = newKey('key-1');

  const build = () => {
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: options.redirectUris,
          response_types: ['code'],
          grant_types: ['authorization_code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
      // As Okta and Entra can be told to: the scope's claims in the ID token itself.
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (_ctx, sub) =>
        person && person.sub === sub ? { accountId: sub, claims: () => ({ ...person, sub, email_verified: true }) } : undefined,
      cookies: { keys: ['test identity provider cookie key'] },
      jwks: { keys: [key] },
      adapter,
      ttl: TTL,
    });
    return provider;
  };
  let provider = build();
  let callback = provider.callback();

  /** The interaction passed at once as the chosen person, consenting to what was asked. */
  const interaction = async (req: IncomingMessage, res: ServerResponse) => {
    const details = await provider.interactionDetails(req, res);
    if (!person) throw new Error('signInAs() first');
    const accountId = person.sub;
    const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  };

  /** The token endpoint's answer with its ID token's claims rewritten and signed again. */
  const rewritten = async (body: string, change: Tamper): Promise<string> => {
    const answer = JSON.parse(body) as { id_token?: string };
    if (!answer.id_token) return body;
    const { kid } = decodeProtectedHeader(answer.id_token);
    const signer = change.foreignKey ? newKey(String(kid)) : key;
    answer.id_token = await new SignJWT(change.claims(decodeJwt(answer.id_token)))
      .setProtectedHeader({ alg: 'RS256', kid: String(kid) })
      .sign(await importJWK(signer, 'RS256'));
    return JSON.stringify(answer);
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      interaction(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
      return;
    }
    const change = tamper;
    if (req.method === 'POST' && req.url === '/token' && change) {
      // The body is rewritten on its way out, so its length is not the provider's.
      const setHeader = res.setHeader.bind(res);
      res.setHeader = (name, value) => (name.toLowerCase() === 'content-length' ? res : setHeader(name, value));
      const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
      res.end = ((chunk?: unknown) => {
        rewritten(Buffer.from(chunk as Buffer).toString('utf8'), change)
          .then((body) => end(body))
          .catch((error: unknown) => end(JSON.stringify({ error: String(error) })));
        return res;
      }) as typeof res.end;
    }
    callback(req, res);
  });

  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    clientId,
    clientSecret,
    signInAs: (next) => {
      person = next;
    },
    rotateKeys: () => {
      generation += 1;
      key = newKey(`key-${generation}`);
      provider = build();
      callback = provider.callback();
    },
    tamper: (next) => {
      tamper = next;
    },
    get kid() {
      return key.kid;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A browser's way through redirects: each answer's cookies kept per origin, redirects followed until one leads
 * to `stopAt` (not followed) or a page answers. Answers where it stopped and the status there.
 */
export async function followRedirects(
  start: string,
  jar: Map<string, Map<string, string>>,
  stopAt?: (url: string) => boolean,
  headers: Record<string, string> = {},
): Promise<{ url: string; status: number; location?: string; text: string }> {
  let url = start;
  for (let hops = 0; hops < 20; hops += 1) {
    const origin = new URL(url).origin;
    const cookies = jar.get(origin) ?? new Map<string, string>();
    jar.set(origin, cookies);
    const res = await fetch(url, { redirect: 'manual', headers: { ...headers, cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const [name, value] = [pair.slice(0, at), pair.slice(at + 1)];
      if (/max-age=0|expires=Thu, 01 Jan 1970/i.test(line) || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return { url, status: res.status, text: await res.text() };
    await res.arrayBuffer();
    const next = new URL(location, url).toString();
    if (stopAt?.(next)) return { url, status: res.status, location: next, text: '' };
    url = next;
  }
  throw new Error('too many redirects');
}
