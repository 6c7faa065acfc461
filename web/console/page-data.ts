/** What the shell hands its page script (shell.ts writes it, page/main.tsx reads it): never a secret. */
export interface ConsolePageData {
  lang: string;
  /** The console's base path, ending in `/` (`/v1/auth/console/`). */
  base: string;
  /** Present when signed in. */
  session?: {
    saasId: string;
    apiKey: string;
    /** Repeated in X-Console-CSRF on every request the page makes. */
    csrf: string;
  };
  /** The demo operator's one-click sign-in is offered (npm start, on a loopback address only). */
  demo: boolean;
  /** The largest body one import call takes (MAX_IMPORT_BODY_BYTES): the migration page sends no larger file. */
  importMaxBytes: number;
  /** The SaaS's hosted login screen, for the theme page's preview. */
  loginScreenUrl?: string;
}

export const CSRF_HEADER = 'x-console-csrf';
