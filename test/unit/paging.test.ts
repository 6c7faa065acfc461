import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { DomainError } from '../../shared/errors.js';
import { randomBytes } from 'node:crypto';
import { collect, Cursors, readPage, type OrderedSource } from '../../shared/domain/paging.js';

/** Numbers 1..n, positioned by their zero-padded text; reads are counted. */
function numbers(n: number) {
  const reads: string[] = [];
  const source: OrderedSource<number> = {
    accepts: (position) => /^\d{3}$/.test(position),
    async *read(after) {
      reads.push(after ?? '');
      for (let i = 1; i <= n; i++) {
        const position = String(i).padStart(3, '0');
        if (after === undefined || position > after) yield { position, item: i };
      }
    },
  };
  return { source, reads };
}

const decode = (cursor: string) => Buffer.from(cursor.split('.')[0] as string, 'base64url').toString('utf8');
const deploymentSecret = randomBytes(32);
const cursors = new Cursors(async () => deploymentSecret);
const sealing = { cursors, scope: 'saas-a\nnumbers\n{}' };

describe('readPage', () => {
  it('hands out a cursor only when another item matches beyond the page', async () => {
    const { source } = numbers(10);
    const first = await readPage(source, sealing, undefined, 4);
    assert.deepEqual(first.items, [1, 2, 3, 4]);
    assert.equal(decode(first.cursor!), '004');
    const second = await readPage(source, sealing, first.cursor, 4);
    assert.deepEqual(second.items, [5, 6, 7, 8]);
    const last = await readPage(source, sealing, second.cursor, 4);
    assert.deepEqual(last, { items: [9, 10] });
    assert.deepEqual(await readPage(source, sealing, undefined, 10), { items: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }, 'exactly full: no next page');
  });

  it('keeps only what the filter accepts, and the cursor is the last item handed out', async () => {
    const { source } = numbers(20);
    const even = (n: number) => n % 2 === 0;
    const first = await readPage(source, sealing, undefined, 3, even);
    assert.deepEqual(first.items, [2, 4, 6]);
    assert.equal(decode(first.cursor!), '006');
    assert.deepEqual((await readPage(source, sealing, first.cursor, 3, even)).items, [8, 10, 12]);
    assert.deepEqual(await readPage(source, sealing, undefined, 3, (n) => n > 18), { items: [19, 20] });
  });

  it('refuses cursors it did not make, altered ones still in range, and those of another search, before reading anything', async () => {
    const { source, reads } = numbers(5);
    const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
    const genuine = await cursors.seal(sealing.scope, '002');
    const mac = genuine.split('.')[1] as string;
    const otherDeployment = await new Cursors(async () => randomBytes(32)).seal(sealing.scope, '002');
    const otherSearch = await cursors.seal('saas-b\nnumbers\n{}', '002');
    for (const cursor of [
      '',
      '***',
      encode('004'),
      `${encode('003')}.${mac}`,
      `${encode('002')}=.${mac}`,
      `${genuine}.x`,
      `${encode('002')}.${mac.slice(1)}`,
      otherDeployment,
      otherSearch,
    ]) {
      await assert.rejects(readPage(source, sealing, cursor, 2), (error: unknown) => {
        assert.ok(error instanceof DomainError);
        assert.equal(error.code, 'invalid_cursor');
        assert.ok(error.message.startsWith('cursor:'));
        return true;
      });
    }
    assert.deepEqual(reads, []);
  });

  it('stops reading once it has one item more than the page', async () => {
    let yielded = 0;
    const endless: OrderedSource<number> = {
      accepts: () => true,
      async *read() {
        for (let i = 0; ; i++) {
          yielded++;
          yield { position: String(i), item: i };
        }
      },
    };
    const page = await readPage(endless, sealing, undefined, 5);
    assert.equal(page.items.length, 5);
    assert.equal(yielded, 6);
  });

  it('collect reads the whole source', async () => {
    assert.deepEqual(await collect(numbers(3).source), [1, 2, 3]);
  });
});
