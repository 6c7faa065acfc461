// @ts-check
/**
 * `layers/imports`: every import must be one layers.js allows (an allowlist: a layer imports only the layers its
 * row names). A relative import is resolved to its file (`./x.js` is `./x.ts`, as Node's ESM names the sources)
 * and that file's layer looked up; a package is refused where the table says so (`@aws-sdk/*` in the domain,
 * Node's builtins in page code). The message names both layers and the table.
 */
import { builtinModules } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { layerOf, packageRefusal, refusal } from '../layers.js';

/** The repository root: the folder of layers.js. */
export const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** A path from the repository root, with forward slashes. @param {string} absolute */
export const fromRoot = (absolute) => relative(ROOT, absolute).split(sep).join('/');

/**
 * The file a relative specifier names, from the repository root; the `.ts` source when `x.js` is not a file.
 * @param {string} importer a path from the repository root
 * @param {string} specifier
 */
export function resolveImport(importer, specifier) {
  const target = resolve(ROOT, dirname(importer), specifier);
  if (!target.endsWith('.js') || existsSync(target)) return fromRoot(target);
  // A TypeScript source imported as its output; JSX (the console's page) is `.tsx`.
  const source = target.replace(/\.js$/, '.ts');
  const jsx = `${source}x`;
  return fromRoot(!existsSync(source) && existsSync(jsx) ? jsx : source);
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports only what layers.js allows the layer of the file' },
    schema: [],
  },
  create(context) {
    const file = fromRoot(context.filename);
    if (file.startsWith('..')) return {};
    if (!layerOf(file)) {
      return { Program: (node) => context.report({ node, message: `${file} is in no layer of layers.js: give its folder a row` }) };
    }
    /** @param {import('estree').Node} node @param {unknown} specifier */
    const check = (node, specifier) => {
      if (typeof specifier !== 'string') return;
      const why = specifier.startsWith('.') ? refusal(file, resolveImport(file, specifier)) : packageRefusal(file, specifier, builtinModules);
      if (why) context.report({ node, message: why });
    };
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
    };
  },
};

export default rule;
