/**
 * The layers point inward, and `npm run lint` says so: an import that reaches up (domain → store, schemas →
 * domain, http → wiring, functions → the CDK app, an example → the domain) is an error of its own rule, and the
 * tree as it is has none.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { ESLint } from 'eslint';

const eslint = new ESLint();

/** The no-restricted-imports messages for `code` as if it were the file at `filePath`. */
async function refusals(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('import boundaries', () => {
  for (const [file, specifier] of [
    ['shared/domain/probe.ts', '../store/client.js'],
    ['shared/domain/probe.ts', '../http/pipeline.js'],
    ['shared/domain/probe.ts', '../wiring.js'],
    ['shared/domain/probe.ts', '../adapters/mail/ses-sender.js'],
    ['shared/domain/users/probe.ts', '../../adapters/mail/ses-sender.js'],
    ['shared/domain/users/probe.ts', '../../store/user-repository.js'],
    ['shared/domain/probe.ts', '../../lib/stack.js'],
    ['shared/schemas/probe.ts', '../domain/users.js'],
    ['shared/http/probe.ts', '../wiring.js'],
    ['shared/http/probe.ts', '../store/client.js'],
    ['shared/store/probe.ts', '../http/pipeline.js'],
    ['functions/sign-in/probe.ts', '../../lib/stack.js'],
    ['examples/app/probe.ts', '../../shared/domain/accounts.js'],
    ['examples/app/server/probe.ts', '../../../shared/store/client.js'],
  ] as const) {
    it(`refuses ${file} importing ${specifier}`, async () => {
      const messages = await refusals(file, `import { x } from '${specifier}';\nexport const y = x;\n`);
      assert.equal(messages.length, 1, `no refusal of ${specifier} in ${file}`);
    });
  }

  it('lets each layer import what lies below it', async () => {
    assert.deepEqual(
      await refusals(
        'shared/domain/probe.ts',
        "import { x } from '../errors.js';\nimport { y } from './users/users.js';\nexport const z = [x, y];\n",
      ),
      [],
    );
    assert.deepEqual(
      await refusals('shared/domain/users/probe.ts', "import { x } from '../mail/mail.js';\nexport const y = x;\n"),
      [],
      "the domain's own mail folder",
    );
    assert.deepEqual(await refusals('shared/store/probe.ts', "import type { X } from '../domain/users.js';\nexport type Y = X;\n"), []);
    assert.deepEqual(await refusals('functions/sign-in/probe.ts', "import { x } from '../../shared/wiring.js';\nexport const y = x;\n"), []);
  });

  it('finds no upward import in the tree', async () => {
    const results = await eslint.lintFiles(['shared', 'functions', 'examples']);
    const upward = results.flatMap((r) =>
      r.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => `${r.filePath}:${m.line} ${m.message}`),
    );
    assert.deepEqual(upward, []);
  });
});
