/** Client-side navigation between the console's pages: the path after the base names the page. */
import { pageData } from './api.js';

const listeners = new Set<() => void>();

/** The current page path, after the console's base: `overview`, `users/abc`, with its query. */
export function currentPath(): { page: string; rest: string; query: URLSearchParams } {
  const base = pageData().base;
  const path = location.pathname.startsWith(base) ? location.pathname.slice(base.length) : '';
  const [page = '', ...rest] = path.split('/');
  return { page: page || 'overview', rest: rest.join('/'), query: new URLSearchParams(location.search) };
}

export const hrefOf = (to: string) => `${pageData().base}${to}`;

export function navigate(to: string): void {
  history.pushState(null, '', hrefOf(to));
  listeners.forEach((listener) => listener());
}

export function onNavigate(listener: () => void): () => void {
  listeners.add(listener);
  const pop = () => listener();
  addEventListener('popstate', pop);
  return () => {
    listeners.delete(listener);
    removeEventListener('popstate', pop);
  };
}
