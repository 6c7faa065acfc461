/**
 * A stand-in for Google on this machine: a real OpenID Connect provider (`oidc-provider`, the certified
 * implementation from npm) on 127.0.0.1, with accounts given in advance and a one-click sign-in page in place
 * of Google's. The tests start it, and `npm start -- --google-stand-in` does (docs/federation.md). Point the
 * service at it with GOOGLE_ISSUER, and set the SaaS's Google client to `clientId`/`clientSecret`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface StandInAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface GoogleStandIn {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: StandInAccount[];
  close(): Promise<void>;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export async function startGoogleStandIn(options: { returnUrl: string; accounts: StandInAccount[]; port?: number }): Promise<GoogleStandIn> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'stand-in-client.apps.googleusercontent.com';
  const clientSecret = 'stand-in-secret-0123456789';
  const accounts = options.accounts;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.returnUrl],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // As Google does: the scope's claims in the ID token itself, not only at userinfo.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => {
      const account = accounts.find((a) => a.sub === sub);
      return account ? { accountId: sub, claims: () => ({ ...account }) } : undefined;
    },
    cookies: { keys: ['stand-in cookie key, for this machine only'] },
    // Its own signing key, made now (the ID tokens are checked against its JWKS).
    jwks: {
      keys: [
        { ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'stand-in', alg: 'RS256', use: 'sig' },
      ],
    },
  });
  const callback = provider.callback();

  /** The sign-in page: one button per account; choosing one signs in and consents to what was asked. */
  const interaction = async (req: IncomingMessage, res: ServerResponse) => {
    const details = await provider.interactionDetails(req, res);
    if (req.method === 'GET') {
      const buttons = accounts
        .map((a) => `<button name="sub" value="${escape(a.sub)}" id="account-${escape(a.sub)}">${escape(a.email)}</button>`)
        .join('\n');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Stand-in Google</title><h1>Stand-in Google</h1><p>Choose an account</p>
<form method="post" action="/interaction/${escape(details.uid)}">${buttons}<button name="deny" value="1" id="deny">Cancel</button></form>`);
      return;
    }
    const form = await formBody(req);
    if (form.get('deny')) {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'the person cancelled' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const accountId = form.get('sub') ?? '';
    const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      interaction(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
      return;
    }
    callback(req, res);
  });
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
