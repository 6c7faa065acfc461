import type { MessageTemplate } from '../schemas/configuration.js';
import { PLACEHOLDER } from './default-templates.js';

const HTML_TAG = /<[a-z][\s\S]*?>/i;

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

export interface RenderedMail {
  subject: string;
  html?: string;
  text?: string;
}

/** `{####}` replaced; HTML-escaped when the message is HTML (a code like `<a&b>` must not become markup). */
export function renderMail(template: MessageTemplate, value: string): RenderedMail {
  const subject = template.subject.replaceAll(PLACEHOLDER, value).replace(/[\r\n]+/g, ' ');
  if (HTML_TAG.test(template.message)) return { subject, html: template.message.replaceAll(PLACEHOLDER, escapeHtml(value)) };
  return { subject, text: template.message.replaceAll(PLACEHOLDER, value) };
}
