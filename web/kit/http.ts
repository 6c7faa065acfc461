/**
 * A request and an answer as the parts of a browser-facing app take and give them (the login screen, the
 * authorization server, the theme, the console), apart from API Gateway's event, which each app's
 * `web/<app>/<group>-function.ts` turns into one.
 */
export interface WebRequest {
  method: string;
  /** The path after the part's own prefix: `{saas id}/…` for the login screen, `api/auth/roles` for the console. */
  path: string;
  query: URLSearchParams;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  body: Buffer;
  /** On the SaaS's own origin (web/login/host-gate.ts): only there does its own script (the tag manager) run. */
  ownOrigin?: boolean;
}

export interface WebResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}
