/** A request to the screen and its answer, whatever carries them (a Lambda event, npm start's server): apart from screen.ts so that the pieces it calls (authorization-server.ts, theme.ts) name them without importing it. */
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
