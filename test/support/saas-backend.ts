/**
 * A SaaS's backend as the official SaaSus samples build it, without Express: its front page sends a visitor
 * without a session to the hosted login screen; the callback trades the temporary code with
 * `GET /credentials?code=…` (what the SDK's CallbackRouteFunction does) and keeps the tokens in its session;
 * a protected page checks the ID token with `GET /userinfo` (what the SDK's AuthMiddleware does).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SignedClient } from '../../client/signed-fetch.js';

export interface SaasBackend {
  url: string;
  callbackUrl: string;
  /** Every callback: its query, and what trading the code answered the first and a second time. */
  callbacks: { code: string; state: string | null; status: number; again: number }[];
  close(): Promise<void>;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startSaasBackend(api: SignedClient, loginUrl: string): Promise<SaasBackend> {
  const sessions = new Map<string, { idToken: string }>();
  const callbacks: SaasBackend['callbacks'] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://backend');
      const sid = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
      const session = sid ? sessions.get(sid) : undefined;
      if (url.pathname === '/callback') {
        const code = url.searchParams.get('code') ?? '';
        const traded = await api.get<{ id_token: string }>(`/credentials?code=${encodeURIComponent(code)}`);
        const again = await api.get(`/credentials?code=${encodeURIComponent(code)}`);
        callbacks.push({ code, state: url.searchParams.get('state'), status: traded.status, again: again.status });
        if (traded.status !== 200) {
          res.writeHead(401, { 'content-type': 'text/plain' }).end(`code refused: ${traded.text}`);
          return;
        }
        const newSid = randomUUID();
        sessions.set(newSid, { idToken: traded.body.id_token });
        res.writeHead(302, { location: '/', 'set-cookie': `sid=${newSid}; HttpOnly; SameSite=Lax; Path=/` }).end();
        return;
      }
      if (!session) {
        res.writeHead(302, { location: `${loginUrl}?state=${encodeURIComponent(`from-${url.pathname}`)}` }).end();
        return;
      }
      const me = await api.get<{ email: string; tenants: { id: string }[] }>(`/userinfo?token=${encodeURIComponent(session.idToken)}`);
      if (me.status !== 200) {
        res.writeHead(401, { 'content-type': 'text/plain' }).end(`not signed in: ${me.text}`);
        return;
      }
      const tenants = me.body.tenants.map((t) => `<li>${escape(t.id)}</li>`).join('');
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<p id="who">${escape(me.body.email)}</p><ul id="tenants">${tenants}</ul>`);
    })().catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    callbackUrl: `${url}/callback`,
    callbacks,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
