/**
 * An app's built script and style (web/page-assets.ts writes them to `public/` beside the app's wiring, and the
 * stack copies that folder beside the deployed bundle), each read once per warm instance.
 */
import { readFile } from 'node:fs/promises';

/** `dir`: the folder's URL, made from the caller's own `import.meta.url` so it resolves beside its bundle. */
export function builtAssets(dir: URL): (name: string) => Promise<string> {
  const read = new Map<string, Promise<string>>();
  return (name) => {
    let text = read.get(name);
    if (!text) {
      text = readFile(new URL(name, dir), 'utf8');
      read.set(name, text);
    }
    return text;
  };
}
