/**
 * The cost of screening a new password against the bundled breached-password filter
 * (shared/domain/configuration/breached-passwords.ts): the first check of a cold instance, which reads and
 * decodes the file, then a warm check of a password that is not on the list (every form looked up) and of one
 * that is (stops at the first form found), beside the SRP verifier that setting a password computes anyway.
 *   npm run bench -- breached
 */
import { statSync } from 'node:fs';
import { createPasswordVerifier } from '../shared/crypto/srp.js';
import { BREACHED_FILTER_FILE, isBreachedPassword } from '../shared/domain/configuration/breached-passwords.js';
import { ms, summarize, writeResults } from './support.js';

const ROUNDS = 20_000;
const VERIFIER_ROUNDS = 50;

function timed(rounds: number, work: (i: number) => void): number[] {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    work(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples;
}

const coldStart = process.hrtime.bigint();
isBreachedPassword('first check of the instance');
const cold = Number(process.hrtime.bigint() - coldStart) / 1e6;

const fresh = summarize(timed(ROUNDS, (i) => isBreachedPassword(`Kyoto#Lantern-${i}-夜明け`)));
const listed = summarize(timed(ROUNDS, () => isBreachedPassword('Password123!')));
const verifier = summarize(timed(VERIFIER_ROUNDS, (i) => createPasswordVerifier('PoolBench', `user-${i}`, 'Kyoto#Lantern8')));
const fileBytes = statSync(new URL(`../shared/domain/configuration/${BREACHED_FILTER_FILE}`, import.meta.url)).size;

const figures = {
  fileBytes,
  coldFirstCheckMs: cold,
  notListedMedianMs: fresh.median,
  listedMedianMs: listed.median,
  srpVerifierMedianMs: verifier.median,
  checkShareOfVerifier: fresh.median / verifier.median,
};
process.stdout.write(
  `breached-password screen (filter ${(fileBytes / 1024).toFixed(0)} KiB, beside the bundle)\n` +
    `   first check (read + decode): ${ms(cold)}\n` +
    `   warm, not listed: median ${ms(fresh.median)}, p99 ${ms(fresh.p99)}\n` +
    `   warm, listed:     median ${ms(listed.median)}\n` +
    `   SRP verifier of the same password (computed anyway): median ${ms(verifier.median)}\n` +
    `   screen / verifier: ${(figures.checkShareOfVerifier * 100).toFixed(2)} %\n`,
);
writeResults('breached-passwords', figures);
