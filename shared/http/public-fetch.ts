/**
 * Reading a document at a URL someone else chose (a tenant's SAML metadata_url) without letting them aim the
 * service at itself or its network: a blind SSRF and a port oracle otherwise (issue 24).
 *
 * - https only; the host is resolved once, and every address it names must be a public unicast address
 *   (ipaddr.js's classification: `unicast` alone, so loopback, private, link-local incl. 169.254.169.254,
 *   CGNAT, unique-local, IPv4-mapped and other special ranges are refused). `localhost` and `*.localhost` are
 *   refused by name. Decimal, octal and hex IPv4 spellings need no rule of their own: the WHATWG URL parser
 *   writes them as the dotted address that is then checked.
 * - The connection goes to the address that was checked (the request's `lookup` answers it), so a second DNS
 *   answer cannot move it elsewhere (no rebinding window). TLS still checks the certificate against the name.
 * - No redirects, a deadline for the whole exchange, and a size cap on what is read.
 * - In local mode only (`npm start`, the tests), plain http to this machine too: the one exception, given to each
 *   fetcher by the wiring (the `loopback` option), for a webhook receiver or an identity provider on the laptop.
 *
 * Every refusal is a DomainError (a 400 on the API, a page on the sign-in), never a 5xx.
 */
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { DomainError, invalid } from '../errors.js';

export interface HostAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (the port a test replaces to say "this name is 10.0.0.1"). */
export type HostResolver = (hostname: string) => Promise<HostAddress[]>;

export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

/** A public unicast address: nothing of the service's own host or network, nothing special-purpose. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.range() !== 'unicast') return false;
  // IPv6 beyond what ipaddr.js names: only the global unicast block 2000::/3 is routed on the internet, and
  // ::/8 holds IPv4-compatible forms (::7f00:1 is 127.0.0.1 to some stacks) that it calls unicast.
  return parsed.kind() === 'ipv4' || parsed.match(ipaddr.IPv6.parse('2000::'), 3);
}

export interface PublicFetchOptions {
  resolve: HostResolver;
  /** The deadline of the whole exchange: resolving, connecting, reading. */
  timeoutMs: number;
  maxBytes: number;
  /** Which addresses may be reached; public unicast ones unless a test says otherwise. */
  allowed?: (address: string) => boolean;
  /** Certificates to trust besides the system's (a test's own server). */
  ca?: string;
  /**
   * Under `npm start` and in the tests only (the wiring sets it in local mode, never on AWS): plain http to this
   * machine (a loopback address, `localhost`) is allowed too, so a webhook receiver or an identity provider on the
   * laptop can be named; https is checked as ever. An option given when the fetcher is made, not a switch of the
   * module, so that what a fetcher may reach is read where it is built, and no test leaves it on for another.
   */
  loopback?: boolean;
}

/** Where a checked URL is fetched: the URL and the one address the connection goes to. */
export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

export class PublicFetcher {
  constructor(private readonly options: PublicFetchOptions) {}

  /** The URL and the address to connect to, or a 400 naming `field` saying why it may not be fetched. */
  async check(url: string, field: string): Promise<CheckedTarget> {
    const refused = (why: string) => invalid('invalid_parameter', `${field}: ${why}`, { field });
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    const http = parsed?.protocol === 'http:' && this.options.loopback === true;
    if (!parsed || !(parsed.protocol === 'https:' || http)) throw refused('must be an absolute https URL');
    if (parsed.username || parsed.password) throw refused('must not carry a user name or password');
    const host = hostOf(parsed);
    if (http) {
      const onThisMachine = thisMachine(host);
      if (!onThisMachine) throw refused(`must be an https URL (plain http only to this machine, in local mode)`);
      return { url: parsed, ...onThisMachine };
    }
    const allowed = this.options.allowed ?? isPublicAddress;
    if (ipaddr.isValid(host)) {
      if (!allowed(host)) throw refused(`${host} is not a public address`);
      return { url: parsed, address: host, family: host.includes(':') ? 6 : 4 };
    }
    if (thisMachine(host)) throw refused(`${host} is this machine`);
    let addresses: HostAddress[];
    try {
      addresses = await withDeadline(this.options.resolve(host), this.options.timeoutMs);
    } catch {
      throw refused(`${host} does not resolve`);
    }
    const first = addresses[0];
    if (!first) throw refused(`${host} does not resolve`);
    // Every answer, not only the one used: a name mixing a public and a private address is refused.
    const closed = addresses.find((a) => !allowed(a.address));
    if (closed) throw refused(`${host} resolves to ${closed.address}, which is not a public address`);
    return { url: parsed, address: first.address, family: first.family };
  }

  /** The body of a 200 answer at `url` (checked as `check` does), as UTF-8 text. */
  async text(url: string, field: string): Promise<string> {
    const answer = await this.exchange(url, field, { method: 'GET', headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' } });
    if (answer.status !== 200) {
      const redirect = answer.status >= 300 && answer.status < 400 ? ' (redirects are not followed)' : '';
      throw invalid('metadata_unreachable', `${field}: answered ${answer.status}${redirect}`, { field });
    }
    return answer.body.toString('utf8');
  }

  /**
   * A `fetch` for libraries that take one (openid-client's and jose's `customFetch`): each request checked and
   * pinned as `text`'s, any status answered as it came (redirects not followed), the body capped.
   */
  fetcher(field: string): (url: string, init: { method?: string; headers?: Record<string, string> | Headers; body?: unknown }) => Promise<Response> {
    return async (url, init) => {
      const headers = init.headers instanceof Headers ? Object.fromEntries(init.headers.entries()) : { ...(init.headers ?? {}) };
      const body = typeof init.body === 'string' ? init.body : init.body instanceof URLSearchParams ? init.body.toString() : undefined;
      if (body !== undefined && init.body instanceof URLSearchParams) headers['content-type'] ??= 'application/x-www-form-urlencoded';
      const answer = await this.exchange(url, field, { method: init.method ?? 'GET', headers, ...(body !== undefined ? { body } : {}) });
      return new Response(answer.status === 204 || answer.status === 304 ? null : new Uint8Array(answer.body), {
        status: answer.status,
        headers: answer.headers,
      });
    };
  }

  /** One request to a checked, pinned address: its status, headers and (capped) body. */
  private async exchange(
    url: string,
    field: string,
    init: { method: string; headers: Record<string, string>; body?: string },
  ): Promise<{ status: number; headers: Headers; body: Buffer }> {
    const started = Date.now();
    const target = await this.check(url, field);
    // One deadline for the whole exchange, the lookup included.
    const left = Math.max(1, this.options.timeoutMs - (Date.now() - started));
    const failed = (why: string) => invalid('metadata_unreachable', `${field}: ${why}`, { field });
    const { address, family } = target;
    // Answers the address checked above, whatever the name: the connection cannot be moved by another DNS answer.
    const pinned: LookupFunction = (_hostname, options, callback) => {
      if (options.all) (callback as unknown as (e: null, a: HostAddress[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const send = target.url.protocol === 'http:' ? httpRequest : request;
    return new Promise((resolve, reject) => {
      const req = send(
        target.url,
        {
          method: init.method,
          lookup: pinned,
          agent: false,
          signal: AbortSignal.timeout(left),
          headers: init.headers,
          ...(this.options.ca ? { ca: this.options.ca } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > this.options.maxBytes) {
              req.destroy();
              reject(invalid('metadata_too_large', `${field}: larger than ${this.options.maxBytes} bytes`, { field }));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              for (const one of [value ?? []].flat()) headers.append(name, one);
            }
            resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
          });
          res.on('error', (error) => reject(error instanceof DomainError ? error : failed('the answer broke off')));
        },
      );
      req.on('error', (error: Error) => {
        const why =
          error.name === 'AbortError' || error.name === 'TimeoutError' ? `no answer within ${this.options.timeoutMs} ms` : 'cannot be reached';
        reject(failed(why));
      });
      req.end(init.body);
    });
  }
}

/**
 * POSTs `body` to a URL someone chose (a webhook), checked as PublicFetcher.check does and connected to the address
 * checked; answers the status, or why there is none. No redirect is followed and the answer is not read.
 */
export async function postChecked(fetcher: PublicFetcher, url: string, body: string, headers: Record<string, string>, timeoutMs: number) {
  let target: CheckedTarget;
  try {
    target = await fetcher.check(url, 'url');
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  const { address, family } = target;
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (e: null, a: HostAddress[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const send = target.url.protocol === 'http:' ? httpRequest : request;
  return new Promise<{ status?: number; error?: string }>((resolve) => {
    const req = send(
      target.url,
      {
        method: 'POST',
        lookup: pinned,
        agent: false,
        signal: AbortSignal.timeout(timeoutMs),
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0 });
      },
    );
    req.on('error', (error: Error) =>
      resolve({ error: error.name === 'AbortError' || error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'cannot be reached' }),
    );
    req.end(body);
  });
}

/** The address to connect to for a host of this machine (a loopback address, `localhost`), or undefined. */
function thisMachine(host: string): { address: string; family: 4 | 6 } | undefined {
  if (ipaddr.isValid(host)) return ipaddr.parse(host).range() === 'loopback' ? { address: host, family: host.includes(':') ? 6 : 4 } : undefined;
  const name = host.replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') ? { address: '127.0.0.1', family: 4 } : undefined;
}

/** A plain http URL to this machine: what a fetcher made with `loopback` lets through besides https. */
export const isLoopbackHttp = (url: string): boolean =>
  URL.canParse(url) && new URL(url).protocol === 'http:' && thisMachine(hostOf(new URL(url))) !== undefined;

/** The host of a URL as ipaddr.js reads it: an IPv6 address without its brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('deadline')), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

let resolverForTests: HostResolver | undefined;

/** The resolver the service uses: the system's, or what a test put in its place. */
export const hostResolver = (): HostResolver => (hostname) => (resolverForTests ?? systemResolver)(hostname);

/** Tests only: names resolve as `names` says (others do not resolve at all), so no test depends on external DNS. */
export function setHostsForTests(names: Record<string, string | string[]> | undefined): void {
  resolverForTests =
    names &&
    (async (hostname) => {
      const given = names[hostname];
      if (given === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return [given].flat().map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as HostAddress);
    });
}
