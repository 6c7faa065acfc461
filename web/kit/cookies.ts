/**
 * The cookies of the login function and the SAML function: always HttpOnly, scoped to a path, Secure over
 * HTTPS. Strict for the screen's own CSRF cookie; Lax for a flow that comes back from another site (Google, a
 * SAML identity provider), which a Strict cookie would not survive.
 */
export interface CookieScope {
  path: string;
  sameSite: 'Strict' | 'Lax';
  secure: boolean;
}

/** A Set-Cookie value; `maxAge` 0 forgets the cookie. */
export function setCookie(name: string, value: string, scope: CookieScope, maxAge?: number): string {
  return `${name}=${value}; Path=${scope.path}; HttpOnly; SameSite=${scope.sameSite}${maxAge !== undefined ? `; Max-Age=${maxAge}` : ''}${scope.secure ? '; Secure' : ''}`;
}

/** The value of cookie `name` in a Cookie header. */
export function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
