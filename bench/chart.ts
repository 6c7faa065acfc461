/**
 * The benchmarks' figures as one small SVG chart (bench/results/summary.svg), drawn from the JSON they
 * wrote: whichever results exist, so a run of some benchmarks redraws what it can. `npm run bench` draws it
 * after the benchmarks; docs/bench-summary.svg is a copy of one run's chart, committed by hand.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readResults, resultsDir } from './support.js';

interface Bar {
  label: string;
  values: number[];
  /** What each value reads as, beside its bar. */
  text: string;
}

interface Panel {
  title: string;
  bars: Bar[];
  /** A dashed line at this value (a target), with its label. */
  mark?: { value: number; label: string };
}

interface Median {
  median: number;
  p99: number;
}

function panels(): Panel[] {
  const out: Panel[] = [];
  const srp = readResults<{ serverSignIn: Median; openSslFloor: Median; bigIntBaseline: Median; ratioToFloor: number }>('srp');
  if (srp) {
    out.push({
      title: `Server cost of one SRP sign-in, CPU ms (engine ${srp.ratioToFloor.toFixed(2)}× the floor; target ≤ 1.2×)`,
      bars: [
        { label: "OpenSSL's floor", values: [srp.openSslFloor.median], text: `${srp.openSslFloor.median.toFixed(2)} ms` },
        { label: 'our engine', values: [srp.serverSignIn.median], text: `${srp.serverSignIn.median.toFixed(2)} ms` },
        { label: 'BigInt loop', values: [srp.bigIntBaseline.median], text: `${srp.bigIntBaseline.median.toFixed(2)} ms` },
      ],
    });
  }
  const http = readResults<{ throughput: Record<string, { perSecond: number }>; signInsPerSecondPerCore: number; perCoreTarget: number }>(
    'sign-in-http',
  );
  if (http) {
    out.push({
      title: 'Full sign-ins per second through the local API (one machine, DynamoDB Local)',
      bars: [
        ...Object.entries(http.throughput).map(([label, t]) => ({ label, values: [t.perSecond], text: `${t.perSecond.toFixed(1)}/s` })),
        { label: 'per service core', values: [http.signInsPerSecondPerCore], text: `${http.signInsPerSecondPerCore.toFixed(0)}/s` },
      ],
      mark: { value: http.perCoreTarget, label: `target ${http.perCoreTarget}/s per core` },
    });
  }
  const management = readResults<{ operations: Record<string, { latency: Median; perSecond: number }> }>('management-http');
  if (management) {
    out.push({
      title: 'Management API latency through the local API, ms (p50, p99)',
      bars: Object.entries(management.operations).map(([label, o]) => ({
        label,
        values: [o.latency.median, o.latency.p99],
        text: `${o.latency.median.toFixed(1)} / ${o.latency.p99.toFixed(1)} ms, ${o.perSecond.toFixed(0)}/s`,
      })),
    });
  }
  type LambdaRun = { handlerCpu: Median; floor: Median; ratio: number; storeRequests: number; target: number };
  type Least = { floor: number; threeRequests: number };
  const lambda = readResults<Record<string, LambdaRun | Least>>('sign-in-lambda');
  if (lambda) {
    const least = lambda.least as Least | undefined;
    const runs = Object.entries(lambda).filter((entry): entry is [string, LambdaRun] => 'handlerCpu' in entry[1]);
    out.push({
      title: "A full sign-in on the Lambda path: the handler's CPU ms beside the crypto floor (3 modexp + 2 RS256)",
      bars: [
        ...runs.flatMap(([label, run]) => [
          {
            label: `${label.replace(/ \(.*\)$/, '')}`,
            values: [run.handlerCpu.median],
            text: `${run.handlerCpu.median.toFixed(2)} ms, ${run.ratio.toFixed(2)}× the floor, ${run.storeRequests} store requests`,
          },
          { label: 'floor, same run', values: [run.floor.median], text: `${run.floor.median.toFixed(2)} ms` },
        ]),
        ...(least
          ? [
              {
                label: 'least on this path (3 requests)',
                values: [least.threeRequests],
                text: `${least.threeRequests.toFixed(2)} ms, ${(least.threeRequests / least.floor).toFixed(2)}× the floor`,
              },
            ]
          : []),
      ],
    });
  }
  const scale = readResults<{
    sizes: number[];
    figures: Record<string, Record<number, { cpuMs: number; p50: number }>>;
    ratios?: Record<string, { cpuMs: number; readUnits: number }>;
    grows?: string[];
  }>('scale');
  if (scale) {
    const sizes = scale.sizes.filter((size) => Object.values(scale.figures).some((bySize) => bySize[size]));
    const sizeNames = sizes.map((n) => n.toLocaleString('en')).join(' / ');
    const short = (name: string) => (name.length > 28 ? `${name.slice(0, 27)}…` : name);
    const grows = (name: string) => (scale.grows ?? []).some((start) => name.startsWith(start));
    // An unpaged list is drawn by its gzip call, the one made at every size (plain JSON passes 6 MB at the largest).
    const GZIP = ' (Accept-Encoding: gzip)';
    const drawn = (name: string) =>
      name.includes('Accept-Encoding') ? name.endsWith(GZIP) : !Object.prototype.hasOwnProperty.call(scale.figures, `${name}${GZIP}`);
    const curves = (keep: (name: string) => boolean) =>
      Object.entries(scale.figures)
        .filter(([name]) => drawn(name) && keep(name))
        .map(([name, bySize]) => ({
          label: short(name.replace(GZIP, ', gzip')),
          values: sizes.map((size) => bySize[size]?.cpuMs ?? 0),
          text: sizes.map((size) => bySize[size]?.cpuMs.toFixed(1) ?? '—').join(' / '),
        }));
    out.push({ title: `Scale, keyed operations: handler CPU ms per call at ${sizeNames} users (one SaaS)`, bars: curves((name) => !grows(name)) });
    out.push({ title: `Scale, what grows with the SaaS: handler CPU ms per call at ${sizeNames} users`, bars: curves(grows) });
    if (scale.ratios) {
      out.push({
        title: `Scale: keyed operations' CPU and read units, largest size over smallest (target ≤ 1.2×)`,
        bars: Object.entries(scale.ratios)
          .filter(([name]) => !grows(name))
          .map(([name, r]) => ({
            label: short(name),
            values: [r.cpuMs, r.readUnits],
            text: `CPU ${r.cpuMs.toFixed(2)}×, read units ${r.readUnits.toFixed(2)}×`,
          })),
        mark: { value: 1.2, label: '1.2×' },
      });
    }
  }
  const cost = readResults<{ monthlyTotal: number; cognitoMonthly: number; month: { activeUsers: number } }>('cost');
  if (cost) {
    out.push({
      title: `A month for ${cost.month.activeUsers.toLocaleString('en')} active users on AWS, USD`,
      bars: [
        { label: 'this service', values: [cost.monthlyTotal], text: `$${cost.monthlyTotal.toFixed(2)}` },
        { label: 'Cognito Essentials', values: [cost.cognitoMonthly], text: `$${cost.cognitoMonthly.toFixed(2)}` },
      ],
    });
  }
  return out;
}

const WIDTH = 760;
const LABEL = 170;
const BAR_AREA = 380;
const ROW = 22;
const COLOURS = ['#3b6ea8', '#a8c4e0', '#1f3d63'];

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function draw(list: Panel[], measuredAt: string): string {
  const parts: string[] = [];
  let y = 30;
  parts.push(`<text x="10" y="20" font-size="14" font-weight="bold">Benchmarks (npm run bench), ${escape(measuredAt)}</text>`);
  for (const panel of list) {
    y += 14;
    parts.push(`<text x="10" y="${y}" font-size="12" font-weight="bold">${escape(panel.title)}</text>`);
    y += 8;
    const max = Math.max(...panel.bars.flatMap((bar) => bar.values), panel.mark?.value ?? 0);
    const scale = (value: number) => (value / max) * BAR_AREA;
    const top = y;
    for (const bar of panel.bars) {
      parts.push(`<text x="${LABEL - 6}" y="${y + 14}" font-size="11" text-anchor="end">${escape(bar.label)}</text>`);
      // The larger value underneath, so a p50 stays visible in front of its p99.
      const order = bar.values.map((value, i) => ({ value, i })).sort((a, b) => b.value - a.value);
      for (const { value, i } of order) {
        parts.push(`<rect x="${LABEL}" y="${y + 4}" width="${scale(value).toFixed(1)}" height="${ROW - 8}" fill="${COLOURS[i % COLOURS.length]}"/>`);
      }
      parts.push(`<text x="${LABEL + scale(Math.max(...bar.values)) + 6}" y="${y + 14}" font-size="11">${escape(bar.text)}</text>`);
      y += ROW;
    }
    if (panel.mark) {
      const x = LABEL + scale(panel.mark.value);
      parts.push(`<line x1="${x}" y1="${top}" x2="${x}" y2="${y}" stroke="#c0392b" stroke-dasharray="4 3"/>`);
      parts.push(`<text x="${x + 4}" y="${y + 12}" font-size="10" fill="#c0392b">${escape(panel.mark.label)}</text>`);
      y += 14;
    }
    y += 6;
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${y + 10}" viewBox="0 0 ${WIDTH} ${y + 10}" font-family="sans-serif">\n` +
    `<rect width="100%" height="100%" fill="white"/>\n${parts.join('\n')}\n</svg>\n`
  );
}

/** Draws bench/results/summary.svg from the results there; answers its path, or undefined when there are none. */
export function writeSummaryChart(): string | undefined {
  const list = panels();
  if (list.length === 0) return undefined;
  const file = join(resultsDir, 'summary.svg');
  writeFileSync(file, draw(list, new Date().toISOString().slice(0, 10)));
  return file;
}
