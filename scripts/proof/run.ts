/**
 * The proof itself (scripts/proof.ts says what it checks): imported by that entry once the command line is read,
 * so that `npm run proof -- --help` answers before the engines, the service and the load are loaded.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarize, writeResults } from '../../bench/support.js';
import { outboxRepository } from '../../shared/wiring.js';
import { mailChecks, scanTable, tableChecks, type Check, type SesOutage } from './checks.js';
import { Load, REQUEST_BOUND_MS, type Answer } from './load.js';
import { lockoutRace } from './lockout.js';
import { startWorld, type ProofWorld } from './world.js';

const LOAD_SECONDS = Number(process.env.PROOF_LOAD_SECONDS ?? 60);
const WORKERS = Number(process.env.PROOF_WORKERS ?? 8);
/** SES fails every send from a third into the load, for a fifth of it. */
const SES_OUTAGE = { from: LOAD_SECONDS / 3, seconds: LOAD_SECONDS / 5 };
/** Seconds of load before DynamoDB Local stops, how long it stays down, and load after it is back. */
const DYNAMO_OUTAGE = { before: 8, down: 8, after: 15 };
/** Then the network to it is cut this many times, for this long, about this often. */
const NETWORK_CUTS = { count: 10, cutMs: 400, everyMs: 1500 };
/** The service's memory may grow this much over the whole run (after a full collection) before it counts as a leak. */
const HEAP_GROWTH_ALLOWED_MB = 20;
/** Mail deferred by the SES outage is retried 30 s later; a claim cut short by the DynamoDB outage lapses after 120 s. */
const DRAIN_BOUND_SECONDS = 240;
const TOTAL_BOUND_MINUTES = 15;

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => process.stdout.write(`${line}\n`);

/** Runs the load while `going()`, saying every 10 s how far it is, so a long phase does not look hung. */
async function loadWithProgress(load: Load, phase: string, going: () => boolean): Promise<void> {
  const start = Date.now();
  const before = load.answers.length;
  const ticker = setInterval(
    () => say(`  … ${phase}: ${Math.round((Date.now() - start) / 1000)} s, ${load.answers.length - before} requests so far`),
    10_000,
  );
  try {
    await load.runWhile(going, WORKERS);
  } finally {
    clearInterval(ticker);
  }
}
const checks: Check[] = [];
const figures: Record<string, unknown> = {};

let world: ProofWorld | undefined;
/** Every answer the load recorded, kept with the files of a failed run. */
let answers: Answer[] = [];
const bound = setTimeout(() => {
  say(`FAIL: the proof did not finish within ${TOTAL_BOUND_MINUTES} minutes`);
  void Promise.race([world?.close({ keepFiles: true }), sleep(10_000)]).finally(() => process.exit(1));
}, TOTAL_BOUND_MINUTES * 60_000);

const within = (answers: Answer[], from: number, to: number) => answers.filter((a) => a.startedAt >= from && a.startedAt < to);

function opTable(answers: Answer[], seconds: number): string {
  const ops = new Map<string, Answer[]>();
  for (const a of answers) ops.set(a.op, [...(ops.get(a.op) ?? []), a]);
  const lines = [`    ${'operation'.padEnd(24)}${'requests'.padStart(9)}${'as due'.padStart(8)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}`];
  for (const [op, list] of [...ops].sort((a, b) => b[1].length - a[1].length)) {
    const latency = summarize(list.map((a) => a.ms));
    const due = list.filter((a) => a.expected.includes(a.status)).length;
    lines.push(
      `    ${op.padEnd(24)}${String(list.length).padStart(9)}${String(due).padStart(8)}${String(latency.median).padStart(9)}${String(latency.p99).padStart(9)}`,
    );
  }
  lines.push(`    ${answers.length} requests in ${seconds.toFixed(0)} s: ${(answers.length / seconds).toFixed(1)} per second`);
  return lines.join('\n');
}

interface Window {
  from: number;
  to: number;
}

/** The load's answers while `fault` runs (it answers the windows of the fault), split by whether they overlapped one. */
async function underFault(load: Load, fault: () => Promise<Window[]>) {
  const start = Date.now();
  let windows: Window[] = [];
  let over = false;
  const faults = fault().then((list) => {
    windows = list;
    over = true;
  });
  await loadWithProgress(load, 'load under the fault', () => !over);
  await faults;
  const end = Date.now();
  const answers = within(load.answers, start, end);
  const during = answers.filter((a) => windows.some((w) => a.startedAt <= w.to && a.startedAt + a.ms >= w.from));
  const outside = answers.filter((a) => !during.includes(a));
  return {
    answers,
    during,
    outside,
    after: answers.filter((a) => a.startedAt > (windows.at(-1)?.to ?? end)),
    seconds: (end - start) / 1000,
    slowestMs: Math.max(0, ...during.map((a) => a.ms)),
  };
}

/** What is wrong with answers given while the store was away: any status will do, but in time and in shape. */
function faultProblems(during: Answer[]): string[] {
  const problems: string[] = [];
  const hung = during.filter((a) => a.status === 0);
  if (hung.length) problems.push(`${hung.length} requests unanswered after ${REQUEST_BOUND_MS / 1000} s (${hung[0]?.op})`);
  const refused = during.filter((a) => a.status === -1);
  if (refused.length) problems.push(`${refused.length} requests could not connect to the service (${refused[0]?.op})`);
  const misshapen = during.filter((a) => !a.errorShapeOk);
  if (misshapen.length)
    problems.push(`${misshapen.length} answers not in the {type, message, data} shape, e.g. ${misshapen[0]?.status} ${misshapen[0]?.text}`);
  return problems;
}

/** No 5xx, and what faultProblems asks; besides, every status the one expected. */
function cleanAnswers(name: string, answers: Answer[]): Check {
  const serverErrors = answers.filter((a) => a.status >= 500);
  const unexpected = answers.filter((a) => a.status > 0 && a.status < 500 && !a.expected.includes(a.status));
  const problems: string[] = [];
  if (serverErrors.length)
    problems.push(`${serverErrors.length} answers 5xx, e.g. ${serverErrors[0]?.op}: ${serverErrors[0]?.status} ${serverErrors[0]?.text}`);
  problems.push(...faultProblems(answers));
  for (const a of unexpected.slice(0, 5)) problems.push(`${a.op}: ${a.status} where ${a.expected.join('/')} was due: ${a.text}`);
  if (unexpected.length > 5) problems.push(`… ${unexpected.length - 5} more unexpected answers`);
  return { name, problems, looked: `${answers.length} requests` };
}

async function main(): Promise<void> {
  say(`Proof under pressure: ${LOAD_SECONDS} s of mixed load with ${WORKERS} clients, an SES outage, a DynamoDB Local outage, the lockout race`);
  world = await startWorld();
  const { service, api, ses } = world;
  say(`  engines, SaaS and service ready (service pid ${service.pid}; files in ${world.dir})`);
  const load = new Load(api);
  answers = load.answers;
  await load.prepare();
  say(`  seeded: ${load.model.signInUsers.length} users who sign in, ${load.model.tenantIds.length} tenants`);

  // Memory of the service, every second, for the whole load.
  const memory: NodeJS.MemoryUsage[] = [];
  const sampler = setInterval(
    () =>
      void service.usage().then(
        (u) => memory.push(u.memory),
        () => undefined,
      ),
    1000,
  );

  // 1. Steady load, with SES failing for a while.
  const steadyStart = Date.now();
  const steadyEnd = steadyStart + LOAD_SECONDS * 1000;
  const sesWindow = { from: steadyStart + SES_OUTAGE.from * 1000, to: steadyStart + (SES_OUTAGE.from + SES_OUTAGE.seconds) * 1000 };
  const faults = (async () => {
    await sleep(10_000);
    figures.heapStart = (await service.usage({ collectGarbage: true })).memory;
    await sleep(Math.max(0, sesWindow.from - Date.now()));
    ses.status = 503;
    ses.failures = Number.MAX_SAFE_INTEGER;
    const sesRequests = ses.requests;
    await sleep(Math.max(0, sesWindow.to - Date.now()));
    ses.failures = 0;
    figures.sesOutage = { seconds: SES_OUTAGE.seconds, sendsRefused: ses.requests - sesRequests } satisfies SesOutage;
  })();
  await loadWithProgress(load, `mixed load of ${LOAD_SECONDS} s`, () => Date.now() < steadyEnd);
  await faults;
  const steady = within(load.answers, steadyStart, steadyEnd);
  checks.push(
    cleanAnswers(`${LOAD_SECONDS} s of mixed load (SES failing for ${SES_OUTAGE.seconds} s of it): no 5xx, no hang, errors in shape`, steady),
  );
  say(`\n  1. mixed load\n${opTable(steady, LOAD_SECONDS)}`);

  // 2. DynamoDB Local stops under the same load, and starts again on the same data.
  const marks: Record<string, number> = {};
  const outage = await underFault(load, async () => {
    await sleep(DYNAMO_OUTAGE.before * 1000);
    marks.stop = Date.now();
    await (world as ProofWorld).stopDynamo();
    marks.stopped = Date.now();
    await sleep(DYNAMO_OUTAGE.down * 1000);
    marks.restart = Date.now();
    await (world as ProofWorld).startDynamo();
    marks.restarted = Date.now();
    await sleep(DYNAMO_OUTAGE.after * 1000);
    return [{ from: marks.stop, to: marks.restarted }];
  });
  const stop = marks as { stop: number; stopped: number; restart: number; restarted: number };
  const down = outage.during.filter((a) => a.startedAt >= stop.stopped && a.startedAt + a.ms <= stop.restart);
  const recovered = outage.after.find((a) => a.startedAt >= stop.restarted && a.status >= 200 && a.status < 300);
  const outageProblems = faultProblems(outage.during);
  const notServerErrors = down.filter((a) => a.status < 500);
  if (notServerErrors.length)
    outageProblems.push(
      `${notServerErrors.length} answers while DynamoDB Local was down were not 5xx, e.g. ${notServerErrors[0]?.op}: ${notServerErrors[0]?.status}`,
    );
  if (!recovered) outageProblems.push('no request succeeded after the restart');
  if (
    !(await service.usage().then(
      () => true,
      () => false,
    ))
  )
    outageProblems.push('the service process did not survive the outage');
  const recoveryMs = recovered ? recovered.startedAt + recovered.ms - stop.restarted : undefined;
  checks.push({
    name: `DynamoDB Local down ${((stop.restart - stop.stopped) / 1000).toFixed(1)} s under load: 5xx in the error shape within the bound, then service again without a restart of ours`,
    problems: outageProblems,
    looked:
      `${outage.during.length} requests overlapped the outage (${outage.during.filter((a) => a.status >= 500).length} answered 5xx), slowest ${outage.slowestMs} ms ` +
      `(bound ${REQUEST_BOUND_MS} ms); first success ${recoveryMs ?? 'never'} ms after DynamoDB Local answered again (it took ${stop.restarted - stop.restart} ms to start)`,
  });
  checks.push(cleanAnswers('before and after the DynamoDB Local outage: no 5xx, no hang, errors in shape', outage.outside));
  say(`\n  2. DynamoDB Local stopped and started again\n${opTable(outage.answers, outage.seconds)}`);
  figures.dynamoOutage = { ...stop, overlapping: outage.during.length, slowestMs: outage.slowestMs, recoveryMs };

  // 2b. The network to DynamoDB Local cut again and again for a moment: changes of several requests cut midway.
  const cuts = await underFault(load, async () => {
    const windows: Window[] = [];
    for (let i = 0; i < NETWORK_CUTS.count; i++) {
      await sleep(NETWORK_CUTS.everyMs * (0.5 + Math.random()));
      const from = Date.now();
      (world as ProofWorld).network.cut();
      await sleep(NETWORK_CUTS.cutMs);
      (world as ProofWorld).network.restore();
      windows.push({ from, to: Date.now() });
    }
    await sleep(3000);
    return windows;
  });
  checks.push({
    name: `network to DynamoDB Local cut ${NETWORK_CUTS.count} × ${NETWORK_CUTS.cutMs} ms under load: every answer meanwhile in the error shape within the bound`,
    problems: faultProblems(cuts.during),
    looked: `${cuts.during.length} requests overlapped a cut (${cuts.during.filter((a) => a.status >= 500).length} answered 5xx, ${cuts.during.filter((a) => a.expected.includes(a.status)).length} as due), slowest ${cuts.slowestMs} ms`,
  });
  checks.push(cleanAnswers('between the network cuts: no 5xx, no hang, errors in shape', cuts.outside));
  say(`\n  2b. network cuts\n${opTable(cuts.answers, cuts.seconds)}`);
  figures.networkCuts = { ...NETWORK_CUTS, overlapping: cuts.during.length, slowestMs: cuts.slowestMs };

  clearInterval(sampler);
  const heapStart = figures.heapStart as NodeJS.MemoryUsage;
  const heapEnd = (await service.usage({ collectGarbage: true })).memory;
  const rssMax = Math.max(...memory.map((m) => m.rss));
  const heapMax = Math.max(...memory.map((m) => m.heapUsed));
  const growth = heapEnd.heapUsed - heapStart.heapUsed;
  checks.push({
    name: `service memory stable (heap after a full collection grows less than ${HEAP_GROWTH_ALLOWED_MB} MB)`,
    problems: growth > HEAP_GROWTH_ALLOWED_MB * 2 ** 20 ? [`heap grew ${mb(growth)}`] : [],
    looked: `heap ${mb(heapStart.heapUsed)} → ${mb(heapEnd.heapUsed)} (max ${mb(heapMax)}), RSS ${mb(heapStart.rss)} → ${mb(heapEnd.rss)} (max ${mb(rssMax)})`,
  });
  figures.memory = { start: heapStart, end: heapEnd, rssMax, heapMax, samples: memory.length };

  // Deletes answered 5xx are retried, as a client would; then mail is drained.
  const unfinished = await load.retryUncertainDeletes();
  checks.push({
    name: 'deletes cut short by the outage finish when retried',
    problems: unfinished ? [`${unfinished} deletes still not done after 5 retries`] : [],
    looked: `${load.answers.filter((a) => a.op === 'delete user (retried)').length} retries`,
  });
  const drainStart = Date.now();
  let backlog = await outboxRepository().countNotFinal(world.saasId);
  while (backlog > 0 && Date.now() - drainStart < DRAIN_BOUND_SECONDS * 1000) {
    await sleep(2000);
    backlog = await outboxRepository().countNotFinal(world.saasId);
  }
  figures.mailDrainSeconds = (Date.now() - drainStart) / 1000;
  say(`\n  3. mail drained in ${(figures.mailDrainSeconds as number).toFixed(0)} s (${backlog} not final)`);

  // 4. The lockout race, with no other load.
  const race = await lockoutRace(api, load, world.saasId);
  checks.push(...race.checks);
  figures.lockout = race.figures;
  say(
    `  4. lockout race: ${race.figures.checkedProofs} of ${race.figures.racers} wrong proofs checked in ${race.figures.raceSeconds.toFixed(1)} s (at most ${race.figures.allowedProofs} allowed)`,
  );

  // 5. Invariants over the whole table, and mail against the outbox.
  const items = await scanTable();
  checks.push(
    ...tableChecks(items, world.saasId, load.model),
    ...(await mailChecks(items, world.sesUrl, load.model, figures.sesOutage as SesOutage)),
  );
  say(`  5. ${items.length} items of the table checked`);
  figures.requests = load.answers.length;
}

let crashed: unknown;
try {
  await main();
} catch (error) {
  crashed = error;
}
clearTimeout(bound);
const failed = checks.filter((c) => c.problems.length > 0);
say('\nProof under pressure: summary');
for (const check of checks) {
  say(`  ${check.problems.length ? 'FAIL' : 'PASS'}  ${check.name}\n        ${check.looked}`);
  for (const problem of check.problems.slice(0, 10)) say(`        ✗ ${problem}`);
  if (check.problems.length > 10) say(`        ✗ … ${check.problems.length - 10} more`);
}
if (crashed) say(`  FAIL  the proof itself stopped: ${crashed instanceof Error ? (crashed.stack ?? crashed.message) : String(crashed)}`);
const pass = !crashed && failed.length === 0 && checks.length > 0;
say(`\n${pass ? 'PASS' : 'FAIL'}: ${checks.length - failed.length} of ${checks.length} checks hold${crashed ? '; the run did not finish' : ''}`);
writeResults('proof', { pass, checks, ...figures });
if (world) {
  if (!pass) {
    writeFileSync(join(world.dir, 'checks.json'), JSON.stringify(checks, null, 2));
    writeFileSync(join(world.dir, 'answers.json'), JSON.stringify(answers, null, 1));
    say(`kept for a look: ${world.dir} (DynamoDB Local's data, the service's log ${world.serviceLog}, checks.json, answers.json)`);
  }
  await world.close({ keepFiles: !pass });
}
process.exit(pass ? 0 : 1);
