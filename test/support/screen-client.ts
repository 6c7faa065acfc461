/**
 * The hosted login screen driven over HTTP the way its page script does (web/login/page/main.ts): the
 * page opened for its CSRF cookie and data block, then `api/start` and `api/answer` with the browser's SRP
 * (client/srp.ts). For tests of what surrounds the screen; the page itself is tested in Chromium.
 */
import { SrpClient, verifierResponses } from '../../client/srp.js';

export interface ScreenVisit {
  status: number;
  /** The page's data block (csrf, state, authorization, …) when the page opened. */
  data?: Record<string, unknown>;
  cookie: string;
  html: string;
}

/** Opens a screen URL (with its query) as a browser would, without following redirects. */
export async function openScreen(url: string): Promise<ScreenVisit> {
  const res = await fetch(url, { redirect: 'manual' });
  const html = await res.text();
  const block = /<script id="page-data" type="application\/json">([\s\S]*?)<\/script>/.exec(html)?.[1];
  return {
    status: res.status,
    cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
    html,
    ...(block ? { data: JSON.parse(block) as Record<string, unknown> } : {}),
  };
}

/** One JSON step of the page a visit opened (`api/NAME`), with its CSRF cookie and token; the raw answer. */
export function screenStep(url: string, visit: ScreenVisit, name: string, body: object): Promise<Response> {
  return fetch(`${new URL('.', url).toString()}api/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: visit.cookie, 'x-csrf-token': String(visit.data?.csrf) },
    body: JSON.stringify(body),
  });
}

/**
 * Signs in on the page a visit opened, carrying what the page carries (state, authorization); answers the
 * step's JSON: `{redirect}` when signed in.
 */
export async function signInOnScreen(url: string, visit: ScreenVisit, username: string, password: string): Promise<Record<string, unknown>> {
  const base = new URL('.', url).toString();
  const data = visit.data ?? {};
  const post = async (step: string, body: object) => {
    const res = await fetch(`${base}api/${step}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: visit.cookie, 'x-csrf-token': String(data.csrf) },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${step}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const srp = new SrpClient();
  const { challenge } = (await post('start', { username, srp_a: await srp.srpA() })) as { challenge: Parameters<SrpClient['passwordClaim']>[0] };
  const claim = await srp.passwordClaim(challenge, password);
  return post('answer', {
    challenge_name: 'PASSWORD_VERIFIER',
    session: claim.session,
    responses: verifierResponses(claim),
    ...(data.state !== undefined ? { state: data.state } : {}),
    ...(data.authorization !== undefined ? { authorization: data.authorization } : {}),
  });
}
