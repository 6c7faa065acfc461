/**
 * A browser reduced to what redirect-and-cookie flows need, over fetch: a cookie jar per origin (names only:
 * paths and SameSite are not modelled, so keep to flows where sending a cookie more widely changes nothing) and
 * redirects followed by hand, so a test sees where each step sends it.
 */
export class CookieBrowser {
  private readonly jar = new Map<string, Map<string, string>>();

  /** One request with this browser's cookies for the URL's origin; its Set-Cookie kept. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const origin = new URL(url).origin;
    const cookies = [...(this.jar.get(origin) ?? new Map<string, string>())].map(([name, value]) => `${name}=${value}`).join('; ');
    const headers = new Headers(init.headers);
    if (cookies) headers.set('cookie', cookies);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const own = this.jar.get(origin) ?? new Map<string, string>();
      if (value === '' || /max-age=0/i.test(line)) own.delete(name);
      else own.set(name, value);
      this.jar.set(origin, own);
    }
    return res;
  }

  /** Follows redirects from `url` until `stop(url)` says so or a page answers; the last response and its URL. */
  async follow(url: string, stop: (url: string) => boolean = () => false, init: RequestInit = {}): Promise<{ url: string; res: Response }> {
    let current = url;
    let res = await this.request(current, init);
    for (let hops = 0; res.status >= 300 && res.status < 400 && hops < 20; hops += 1) {
      current = new URL(res.headers.get('location') ?? '', current).toString();
      if (stop(current)) return { url: current, res };
      res = await this.request(current);
    }
    return { url: current, res };
  }
}
