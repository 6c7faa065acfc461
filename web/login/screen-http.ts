/**
 * A request and an answer as the login app's parts take and give them (screen.ts, authorization-server.ts,
 * theme.ts), apart from API Gateway's event, which login-function.ts turns into one.
 */
export interface ScreenRequest {
  method: string;
  /** The path after `{BASE_PATH}/login/`: `{saas id}/…`. */
  path: string;
  query: URLSearchParams;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  body: Buffer;
  /** On the SaaS's own origin (web/login/host-gate.ts): only there does its own script (the tag manager) run. */
  ownOrigin?: boolean;
}

export interface ScreenResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}
