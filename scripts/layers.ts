/**
 * `npm run layers`: draws docs/architecture.md's whiteboard of the layers from layers.js, between its marker
 * comments. test/unit/import-boundaries.test.ts fails when the doc and the table differ, so the drawing cannot
 * drift: change the table, then run this.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DOMAIN_ORDER, GROUPS, LAYERS, TEMPORARY_EXCEPTIONS } from '../layers.js';

export const DOC = 'docs/architecture.md';
export const BEGIN = '<!-- layers:begin (npm run layers draws this from layers.js: change the table, not this) -->';
export const END = '<!-- layers:end -->';

/** A layer's imports with whole groups named, largest first. */
function imports(layer: string, names: readonly string[]): string {
  if (names.includes('*')) return 'any layer';
  let rest = [...names];
  const shown: string[] = [];
  // A domain folder imports the folders after it in DOMAIN_ORDER, said once under the table.
  const noun = DOMAIN_ORDER.indexOf(layer.replace(/^domain\//, ''));
  const below = DOMAIN_ORDER.slice(noun + 1).map((lower) => `domain/${lower}`);
  if (noun >= 0 && below.length > 0 && below.every((name) => rest.includes(name))) {
    shown.push('*the domain folders below*');
    rest = rest.filter((name) => !below.includes(name));
  }
  for (const [group, members] of Object.entries(GROUPS).sort(([, a], [, b]) => b.length - a.length)) {
    if (members.every((member) => rest.includes(member))) {
      shown.push(`*${group}*`);
      rest = rest.filter((name) => !members.includes(name));
    }
  }
  const all = [...rest.map((name) => `\`${name}\``), ...shown];
  return all.length ? all.join(', ') : '—';
}

/** The whiteboard: the layers outermost first, each importing only rows below it. */
export function whiteboard(): string {
  const rows = LAYERS.map((layer) => {
    const refused = layer.refusedPackages?.length ? `; no ${layer.refusedPackages.map((p) => `\`${p}\``).join(', ')}` : '';
    return `| ${layer.name} | ${layer.files.map((f) => `\`${f}\``).join(' ')} | ${imports(layer.name, layer.mayImport)}${refused} | ${layer.what} |`;
  });
  const groups = Object.entries(GROUPS).map(([name, members]) => `*${name}*: ${members.map((m) => `\`${m}\``).join(', ')}.`);
  const exceptions = TEMPORARY_EXCEPTIONS.length
    ? `Temporary exceptions, to be emptied: ${TEMPORARY_EXCEPTIONS.map((e) => `\`${e.file}\` → ${e.mayAlsoImport.map((m) => `\`${m}\``).join(', ')}`).join('; ')}.`
    : 'No exceptions.';
  return [
    BEGIN,
    '',
    'Outermost first; a layer imports only the rows below it (and itself), so no import points up.',
    '',
    '| Layer | Files | May import | What |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    `The domain's folders, highest first: ${DOMAIN_ORDER.map((noun) => `\`${noun}/\``).join(' ▶ ')}.`,
    '',
    ...groups.map((line) => `- ${line}`),
    '',
    exceptions,
    '',
    END,
  ].join('\n');
}

/** The doc with its whiteboard redrawn. */
export function redrawn(doc: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${DOC} has no ${BEGIN} … ${END} markers`);
  return doc.slice(0, start) + whiteboard() + doc.slice(end + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(DOC, redrawn(readFileSync(DOC, 'utf8')));
  process.stdout.write(`${DOC}: the layers redrawn from layers.js\n`);
}
