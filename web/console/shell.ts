/**
 * The console's one HTML document: the product's look (console.css), the page data, the page script. Every
 * page of the console is this document; its script draws the page the path names (page/pages.ts). No inline
 * script or style: the strict CSP of the login screen applies.
 */
import { escapeHtml } from '../kit/html.js';
import type { ConsoleTexts } from './texts/en.js';
import type { ConsolePageData } from './page-data.js';

const dataBlock = (data: ConsolePageData) => JSON.stringify(data).replace(/</g, '\\u003c');

export function shellPage(texts: ConsoleTexts, data: ConsolePageData): string {
  const assets = `${data.base}assets/`;
  return `<!doctype html>
<html lang="${texts.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(texts.title)} · ${escapeHtml(texts.product)}</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="${assets}console.css">
<script id="page-data" type="application/json">${dataBlock(data)}</script>
<script src="${assets}console.js" defer></script>
</head>
<body>
<div id="app"><noscript><main><h1>${escapeHtml(texts.title)}</h1><p class="error">${escapeHtml(texts.scriptNeeded)}</p></main></noscript></div>
</body>
</html>
`;
}

/** A page that only says something (a path the console does not have). */
export function messagePage(texts: ConsoleTexts, base: string, message: string): string {
  return `<!doctype html>
<html lang="${texts.lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(texts.title)}</title>
<link rel="stylesheet" href="${base}assets/console.css"></head>
<body><main class="message"><h1>${escapeHtml(texts.title)}</h1><p id="message">${escapeHtml(message)}</p><p><a href="${base}">${escapeHtml(texts.nav.overview)}</a></p></main></body>
</html>
`;
}
