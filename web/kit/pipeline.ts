/**
 * The screen pipeline: what a browser-facing app's request passes, in one order, before its step runs, as
 * shared/http/pipeline.ts is for the API. The host gate first (serve); then, for a step the page calls, a JSON
 * body of bounded size, the page's proof that it sent it (its CSRF token), the body's schema, and any refusal
 * answered in the error shape (step). The login screen (web/login/screen/screen.ts) and the console
 * (web/console/console.ts) both go through it, each with its own rules: which host, which proof, whose words.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { constantTimeEqual } from '../../shared/crypto/compare.js';
import { invalid } from '../../shared/errors.js';
import { errorAnswer } from '../../shared/http/errors.js';
import { parseJsonBody, validate } from '../../shared/http/validation.js';
import { log } from '../../shared/log.js';
import { cookie } from './cookies.js';
import type { WebRequest, WebResponse } from './http.js';

/** An app's door: the request as it goes on (with what the gate learnt of it), or the answer that ends it there. */
export type HostGate = (request: WebRequest) => Promise<{ request: WebRequest } | { answer: WebResponse }>;

/** The gate, then the app's own routing for a request it let through. */
export async function serve(request: WebRequest, gate: HostGate, route: (request: WebRequest) => Promise<WebResponse>): Promise<WebResponse> {
  const passed = await gate(request);
  return 'answer' in passed ? passed.answer : route(passed.request);
}

export interface StepRules<Proof> {
  /**
   * Only `application/json` bodies of at most this many bytes, checked before anything else; left out, the body
   * is the step's to read (the console passes its API calls on unread).
   */
  json?: { maxBytes: number };
  /** That the page sent the request (its CSRF token), and what that proved; or the answer refusing it. Throwing refuses too. */
  fromPage(request: WebRequest): Promise<{ proof: Proof } | { answer: WebResponse }>;
  /** A refusal as the app answers it (refusal below, in its words). */
  refuse(error: unknown): WebResponse;
}

/** A step whose body the schema shapes: the checks of `rules`, then `run`; whatever it throws becomes the app's refusal. */
export async function step<Proof, S extends TSchema>(
  request: WebRequest,
  rules: StepRules<Proof>,
  schema: S,
  run: (body: Static<S>, proof: Proof) => Promise<WebResponse>,
): Promise<WebResponse> {
  return guarded(request, rules, async (proof) => run(validate(schema, await parseJsonBody(request.body), 'body'), proof));
}

/** A step that reads its body itself, or none: the checks of `rules`, then `run`. */
export async function rawStep<Proof>(
  request: WebRequest,
  rules: StepRules<Proof>,
  run: (proof: Proof) => Promise<WebResponse>,
): Promise<WebResponse> {
  return guarded(request, rules, run);
}

async function guarded<Proof>(request: WebRequest, rules: StepRules<Proof>, run: (proof: Proof) => Promise<WebResponse>): Promise<WebResponse> {
  try {
    if (rules.json) {
      if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
        throw invalid('unsupported_media_type', 'content-type: must be application/json');
      }
      if (request.body.length > rules.json.maxBytes) throw invalid('request_too_large', `body: larger than ${rules.json.maxBytes} bytes`);
    }
    const checked = await rules.fromPage(request);
    return 'answer' in checked ? checked.answer : await run(checked.proof);
  } catch (error) {
    return rules.refuse(error);
  }
}

/** Whether the request repeats in `header` the token the page's cookie `name` holds (a double-submit CSRF token). */
export const cookieTokenRepeated = (request: WebRequest, name: string, header: string): boolean => {
  const fromCookie = cookie(request.headers.cookie, name) ?? '';
  return fromCookie !== '' && constantTimeEqual(fromCookie, request.headers[header] ?? '');
};

/** Whether `given` is the token the server holds for the page (the console's, in its session), compared in constant time. */
export const tokenRepeated = (expected: string, given: string | undefined): boolean =>
  given !== undefined && given !== '' && constantTimeEqual(expected, given);

/**
 * An error as the error shape `{type, message, data}`: a domain error's type, its message put in a person's
 * words by `say` (given the type, the status and the service's own message, '' for an unexpected error), which
 * is logged with its stack under `logAs`.
 */
export function refusal(
  error: unknown,
  headers: Record<string, string>,
  logAs: string,
  say: (type: string, status: number, detail: string, data: unknown) => string = (_type, _status, detail) => detail,
): WebResponse {
  const answer = errorAnswer(error);
  if (answer.unexpected) log.error(logAs, error);
  const message = say(answer.body.type, answer.status, answer.unexpected ? '' : answer.body.message, answer.body.data);
  return { status: answer.status, headers, body: JSON.stringify({ type: answer.body.type, message, data: {} }), cookies: [] };
}
