/**
 * The layers (layers.js, docs/architecture.md): the table is ordered so that nothing it allows points up; every
 * import of every file of the tree resolves and is one the table allows; there is no cycle, between files or
 * between layers; `npm run lint` (ESLint's API on probe text) refuses each import the docs rule out; and the
 * whiteboard in docs/architecture.md is the one `npm run layers` draws from the table.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { DOMAIN_ORDER, LAYERS, TEMPORARY_EXCEPTIONS, layerOf, packageRefusal, refusal } from '../../layers.js';
import { resolveImport } from '../../eslint/layers-rule.js';
import { DOC, redrawn } from '../../scripts/layers.js';
import { ENTRY_FUNCTIONS } from '../../shared/routes.js';

/** Every source file of the tree: tracked or new, not ignored (so not node_modules nor the built bundles). */
const FILES = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.ts', '*.tsx', '*.js', '*.mjs'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file !== '' && existsSync(file));

interface Edge {
  from: string;
  to: string;
}

/** Every import of every file, as written (static, type-only, re-exports and dynamic import() alike). */
const SPECIFIERS = FILES.flatMap((from) =>
  ts.preProcessFile(readFileSync(from, 'utf8'), true, true).importedFiles.map(({ fileName }) => ({ from, specifier: fileName })),
);
const EDGES: Edge[] = SPECIFIERS.filter(({ specifier }) => specifier.startsWith('.')).map(({ from, specifier }) => ({
  from,
  to: resolveImport(from, specifier),
}));

const rank = new Map(LAYERS.map((layer, i) => [layer.name, i]));
/** A layer and its `{name}` parts: the unit the folder-level graph is drawn between (web/login, functions/saml...). */
const unitOf = (file: string) => {
  const found = layerOf(file);
  assert.ok(found, `${file} is in no layer`);
  return [found.layer.name, ...Object.values(found.captures)].join(' ');
};

/** The strongly connected parts of more than one node (or a node importing itself): the cycles. */
function cycles(edges: readonly [string, string][]): string[][] {
  const next = new Map<string, string[]>();
  for (const [a, b] of edges) next.set(a, [...(next.get(a) ?? []), b]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const part: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        part.push(member);
      } while (member !== node);
      if (part.length > 1 || (next.get(node) ?? []).includes(node)) found.push(part.sort());
    }
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the table of layers', () => {
  it('names only layers below each row, so nothing it allows points up', () => {
    for (const [i, layer] of LAYERS.entries()) {
      for (const name of layer.mayImport) {
        if (name === '*') continue;
        assert.ok(rank.has(name), `${layer.name} names a layer the table has not: ${name}`);
        assert.ok(rank.get(name)! > i, `${layer.name} may import ${name}, which is not below it`);
      }
    }
  });

  it('ranks the domain folders in DOMAIN_ORDER, each importing only those after it', () => {
    for (const [i, noun] of DOMAIN_ORDER.entries()) {
      const layer = LAYERS.find((l) => l.name === `domain/${noun}`);
      assert.ok(layer, noun);
      const domainImports = layer.mayImport.filter((name) => name.startsWith('domain/'));
      assert.deepEqual(
        domainImports,
        DOMAIN_ORDER.slice(i + 1).map((lower) => `domain/${lower}`),
      );
    }
  });

  it('holds every file of the tree, and every layer holds a file', () => {
    assert.ok(FILES.length > 300, `only ${FILES.length} files found`);
    assert.deepEqual(
      FILES.filter((file) => !layerOf(file)),
      [],
    );
    const held = new Set(FILES.map((file) => layerOf(file)?.layer.name));
    assert.deepEqual(
      LAYERS.filter((layer) => !held.has(layer.name)).map((layer) => layer.name),
      [],
    );
  });

  it('keeps a temporary exception only while its file still needs it', () => {
    for (const { file, mayAlsoImport } of TEMPORARY_EXCEPTIONS) {
      const layer = layerOf(file)?.layer;
      assert.ok(layer, file);
      for (const target of mayAlsoImport) {
        assert.ok(!layer.mayImport.includes(target), `${file}: its layer allows ${target} anyway`);
        const used = EDGES.some(({ from, to }) => from === file && layerOf(to)?.layer.name === target);
        assert.ok(used, `${file} no longer imports ${target}: remove its entry from TEMPORARY_EXCEPTIONS in layers.js`);
      }
    }
  });

  it('is the whiteboard docs/architecture.md shows (npm run layers redraws it)', () => {
    const doc = readFileSync(DOC, 'utf8');
    assert.equal(doc, redrawn(doc), `${DOC} differs from layers.js: run npm run layers`);
  });
});

describe('the tree', () => {
  it('has imports that all resolve to a file', () => {
    assert.ok(EDGES.length > 1000, `only ${EDGES.length} imports found`);
    assert.deepEqual(
      EDGES.filter(({ to }) => !existsSync(to)).map(({ from, to }) => `${from} → ${to}`),
      [],
    );
  });

  it('imports only what the table allows, packages included', () => {
    const refused = [
      ...EDGES.map(({ from, to }) => refusal(from, to)),
      ...SPECIFIERS.filter(({ specifier }) => !specifier.startsWith('.')).map(({ from, specifier }) =>
        packageRefusal(from, specifier, builtinModules),
      ),
    ].filter((why) => why !== undefined);
    assert.deepEqual(refused, []);
  });

  it('has no import that points up', () => {
    const up = EDGES.filter(({ from, to }) => {
      const source = layerOf(from)!.layer.name;
      const target = layerOf(to)!.layer.name;
      return source !== 'test' && target !== source && rank.get(target)! < rank.get(source)!;
    });
    assert.deepEqual(
      up.map(({ from, to }) => `${from} → ${to}`),
      [],
    );
  });

  it("brings web/ into functions/ only through the function pipeline (the not-found page) and a browser-facing app's entry", () => {
    const bringing = [...new Set(EDGES.filter(({ from, to }) => from.startsWith('functions/') && to.startsWith('web/')).map(({ from }) => from))];
    const appEntries = Object.keys(ENTRY_FUNCTIONS).map((name) => `functions/${name}/handler.ts`);
    assert.deepEqual(bringing.sort(), ['functions/group-handler.ts', ...appEntries].sort());
  });

  it('has no cycle between files', () => {
    assert.deepEqual(cycles(EDGES.map(({ from, to }) => [from, to])), []);
  });

  it('has no cycle between folders (a layer, per app or function group)', () => {
    const between = EDGES.map(({ from, to }) => [unitOf(from), unitOf(to)] as [string, string]).filter(([a, b]) => a !== b);
    assert.ok(new Set(between.map(([a]) => a)).size > 30);
    assert.deepEqual(cycles(between), []);
  });
});

const eslint = new ESLint();

/** The layers/imports messages for `code` as if it were the file at `filePath`. */
async function refusals(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'layers/imports').map((m) => m.message);
}

const importing = (specifier: string) => `import { x } from '${specifier}';\nexport const y = x;\n`;

describe('npm run lint', () => {
  for (const [file, specifier, layers] of [
    // The twenty the docs rule out (issue 26), with today's paths.
    ['shared/domain/probe.ts', '../screen-hosts.js', ['domain root', 'screen-hosts']],
    ['shared/domain/users/probe.ts', '../../adapters/site-domains.js', ['domain/users', 'adapters']],
    ['shared/domain/probe.ts', '../adapters/aws/kms.js', ['domain root', 'aws protocol']],
    ['shared/domain/tokens/probe.ts', '../../adapters/aws/json-service.js', ['domain/tokens', 'aws protocol']],
    ['shared/domain/probe.ts', '../config.js', ['domain root', 'config']],
    ['shared/domain/mail/probe.ts', '../../config.js', ['domain/mail', 'config']],
    ['shared/domain/probe.ts', '../../client/signed-fetch.js', ['domain root', 'client']],
    ['shared/domain/sign-in/probe.ts', '../../../client/srp.js', ['domain/sign-in', 'client']],
    ['shared/config.ts', './domain/mail/mail.js', ['config', 'domain/mail']],
    ['shared/config.ts', './domain/atomic.js', ['config', 'domain root']],
    ['shared/crypto/probe.ts', '../domain/users/users.js', ['crypto', 'domain/users']],
    ['shared/crypto/probe.ts', '../domain/paging.js', ['crypto', 'domain root']],
    ['shared/crypto/probe.ts', '../store/keys.js', ['crypto', 'store']],
    ['shared/crypto/probe.ts', '../store/keys.js', ['crypto', 'store']],
    ['shared/adapters/mail/probe.ts', '../../wiring.js', ['adapters', 'wiring']],
    ['shared/adapters/mail/courier.ts', '../../wiring.js', ['adapters', 'wiring']],
    ['functions/saml/handler.ts', '../../web/login/screen.js', ['function entry', 'web']],
    ['functions/saml/handler.ts', '../../web/login/authorization-server.js', ['function entry', 'web']],
    ['client/probe.ts', '../shared/wiring.js', ['client', 'wiring']],
    ['client/srp.ts', '../shared/wiring.js', ['client', 'wiring']],
    // The domain reaches nothing outward, and no domain folder reaches a higher one.
    ['shared/domain/probe.ts', '../store/keys.js', ['domain root', 'store']],
    ['shared/domain/probe.ts', '../http/pipeline.js', ['domain root', 'http']],
    ['shared/domain/probe.ts', '../wiring.js', ['domain root', 'wiring']],
    ['shared/domain/probe.ts', '../adapters/mail/ses-sender.js', ['domain root', 'adapters']],
    ['shared/domain/users/probe.ts', '../../adapters/mail/ses-sender.js', ['domain/users', 'adapters']],
    ['shared/domain/users/probe.ts', '../../store/user-repository.js', ['domain/users', 'store']],
    ['shared/domain/probe.ts', '../../lib/service-stack.js', ['domain root', 'lib']],
    ['shared/domain/configuration/probe.ts', '../users/users.js', ['domain/configuration', 'domain/users']],
    ['shared/domain/configuration/probe.ts', '../tenants/tenants.js', ['domain/configuration', 'domain/tenants']],
    ['shared/domain/tokens/probe.ts', '../sign-in/srp-sign-in.js', ['domain/tokens', 'domain/sign-in']],
    ['shared/domain/probe.ts', './users/users.js', ['domain root', 'domain/users']],
    // The floor, the pipeline and the store.
    ['shared/schemas/probe.ts', '../domain/users/users.js', ['schemas', 'domain/users']],
    ['shared/errors.ts', './wiring.js', ['errors', 'wiring']],
    ['shared/http/probe.ts', '../wiring.js', ['http', 'wiring']],
    ['shared/http/probe.ts', '../store/keys.js', ['http', 'store']],
    ['shared/http/probe.ts', '../domain/users/users.js', ['http', 'domain/users']],
    ['shared/http/probe.ts', '../config.js', ['http', 'config']],
    ['shared/store/probe.ts', '../http/pipeline.js', ['store', 'http']],
    ['shared/store/probe.ts', '../config.js', ['store', 'config']],
    ['shared/store/probe.ts', '../adapters/mail/ses-sender.js', ['store', 'adapters']],
    // Functions, browser-facing apps, page code.
    ['functions/sign-in/probe.ts', '../../lib/service-stack.js', ['functions', 'lib']],
    ['functions/sign-in/probe.ts', '../../local/server.js', ['functions', 'local']],
    ['functions/saml/handler.ts', '../../web/login/login-function.js', ['function entry', 'web entry']],
    // The not-found page enters functions/ in one place, the function pipeline, which only the entries use.
    ['functions/public/operations.ts', '../../web/login/unmatched-page.js', ['functions', 'unmatched page']],
    ['functions/pricing/communication.ts', '../../web/login/unmatched-page.js', ['functions', 'unmatched page']],
    ['functions/public/handler.ts', '../../web/login/unmatched-page.js', ['function entry', 'unmatched page']],
    ['functions/public/operations.ts', '../group-handler.js', ['functions', 'function pipeline']],
    ['functions/group-handler.ts', '../web/login/login-function.js', ['function pipeline', 'web entry']],
    ['functions/tenants/handler.ts', '../../web/login/login-function.js', ['function entry', 'web entry']],
    ['web/login/probe.ts', '../../shared/wiring.js', ['web', 'wiring']],
    ['web/login/probe.ts', '../../shared/config.js', ['web', 'config']],
    ['functions/login/handler.ts', '../../web/login/wiring.js', ['function entry', 'web wiring']],
    ['web/login/probe.ts', '../../shared/store/keys.js', ['web', 'store']],
    ['web/login/page/probe.ts', '../screen.js', ['web page', 'web']],
    // The console's preview may show the login screen's words and colours (screen texts, screen look), nothing else of it.
    ['web/console/page/probe.ts', '../../login/page-data.js', ['web page', 'web shared']],
    ['web/console/page/probe.ts', '../../login/theme.js', ['web page', 'web']],
    ['web/console/texts/probe.ts', '../console.js', ['web texts', 'web']],
    ['web/login/texts/probe.ts', '../screen.js', ['screen texts', 'web']],
    // The outer layers.
    ['bin/probe.ts', '../examples/app/local.js', ['bin', 'examples']],
    ['bench/probe.ts', '../test/support/expect.js', ['bench', 'test']],
    ['scripts/probe.ts', '../test/support/expect.js', ['scripts', 'test']],
    ['dev-support/probe.ts', '../test/support/expect.js', ['dev-support', 'test']],
    ['lib/probe.ts', '../functions/sign-in/handler.js', ['lib', 'function entry']],
    ['local/probe.ts', '../bin/local.js', ['local', 'bin']],
    ['examples/app/probe.ts', '../../shared/domain/accounts/accounts.js', ['examples', 'domain/accounts']],
    ['examples/app/server/probe.ts', '../../../shared/store/keys.js', ['examples', 'store']],
    ['examples/app/page/probe.ts', '../../../shared/log.js', ['example page', 'log']],
  ] as const) {
    it(`refuses ${file} importing ${specifier}`, async () => {
      const messages = await refusals(file, importing(specifier));
      assert.equal(messages.length, 1, `no refusal of ${specifier} in ${file}`);
      assert.match(messages[0]!, new RegExp(`layer '${layers[0]}' .* layer '${layers[1]}' .*layers\\.js`));
    });
  }

  for (const [file, code] of [
    ['shared/domain/probe.ts', "export { x } from '../store/keys.js';\n"],
    ['shared/domain/probe.ts', "export * from '../store/keys.js';\n"],
    ['shared/domain/probe.ts', "export const y = await import('../store/keys.js');\n"],
    ['shared/domain/probe.ts', "import type { X } from '../store/keys.js';\nexport type Y = X;\n"],
  ] as const) {
    it(`refuses ${JSON.stringify(code.trim())} in ${file}`, async () => {
      assert.equal((await refusals(file, code)).length, 1);
    });
  }

  for (const [file, specifier] of [
    ['shared/domain/users/probe.ts', '@aws-sdk/client-dynamodb'],
    ['shared/domain/probe.ts', '@aws-sdk/lib-dynamodb'],
    ['web/login/page/probe.ts', 'node:crypto'],
    ['web/login/page/probe.ts', 'fs'],
    ['examples/app/page/probe.ts', 'node:path'],
  ] as const) {
    it(`refuses ${file} importing the package ${specifier}`, async () => {
      const messages = await refusals(file, importing(specifier));
      assert.equal(messages.length, 1, `no refusal of ${specifier} in ${file}`);
      assert.match(messages[0]!, /layers\.js refuses it/);
    });
  }

  it('refuses a file in no layer of the table', async () => {
    const messages = await refusals('new-folder/probe.ts', importing('../shared/errors.js'));
    assert.deepEqual(messages, ['new-folder/probe.ts is in no layer of layers.js: give its folder a row']);
  });

  it('lets each layer import what the table allows it', async () => {
    for (const [file, specifier] of [
      ['shared/domain/probe.ts', '../errors.js'],
      ['shared/domain/tenants/probe.ts', '../users/users.js'],
      ['shared/domain/users/probe.ts', '../mail/mail.js'],
      ['shared/domain/sign-in/probe.ts', '../tokens/key-store.js'],
      ['shared/domain/users/probe.ts', '../atomic.js'],
      ['shared/store/probe.ts', '../domain/users/users.js'],
      ['shared/log.ts', './config.js'],
      ['web/login/wiring.ts', '../../shared/config.js'],
      ['web/login/wiring.ts', '../../shared/wiring.js'],
      ['web/login/login-function.ts', './wiring.js'],
      ['shared/wiring.ts', './config.js'],
      ['functions/sign-in/probe.ts', '../../shared/wiring.js'],
      ['functions/saml/handler.ts', '../../web/login/saml-function.js'],
      ['functions/public/handler.ts', '../group-handler.js'],
      ['functions/group-handler.ts', '../web/login/unmatched-page.js'],
      ['shared/wiring/tenants.ts', './pricing.js'],
      ['web/login/login-function.ts', '../../shared/config.js'],
      ['web/login/page/probe.ts', '../../../client/srp.js'],
      ['web/login/page/probe.ts', '../texts/ja.js'],
      ['web/login/page/probe.ts', '../page-data.js'],
      ['bench/probe.ts', '../dev-support/harness.js'],
      ['test/unit/probe.ts', '../../dev-support/harness.js'],
      ['examples/app/server/probe.ts', '../../../client/signed-fetch.js'],
    ] as const) {
      assert.deepEqual(await refusals(file, importing(specifier)), [], `${file} importing ${specifier}`);
    }
  });
});
