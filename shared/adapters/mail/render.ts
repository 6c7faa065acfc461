import type { MessageTemplate } from '../../schemas/configuration.js';
import { PLACEHOLDER } from '../../domain/mail/default-templates.js';

const HTML_TAG = /<[a-z][\s\S]*?>/i;

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

export interface RenderedMail {
  subject: string;
  html?: string;
  text?: string;
}

/**
 * `{####}` replaced by `value` as it is: through a function, because a replacement string reads `$&`, `` $` ``
 * and `$'` as patterns, and a generated password may hold them.
 */
const fill = (text: string, value: string) => text.replaceAll(PLACEHOLDER, () => value);

/** `{####}` replaced; HTML-escaped when the message is HTML (a code like `<a&b>` must not become markup). */
export function renderMail(template: MessageTemplate, value: string): RenderedMail {
  const subject = fill(template.subject, value).replace(/[\r\n]+/g, ' ');
  if (HTML_TAG.test(template.message)) return { subject, html: fill(template.message, escapeHtml(value)) };
  return { subject, text: fill(template.message, value) };
}
