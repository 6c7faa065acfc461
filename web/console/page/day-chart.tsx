/**
 * Counts per UTC day as an SVG bar chart (no chart library), one bar per series side by side, with the same
 * figures as a table for screen readers and keyboards: the metered usage's one series (pages/usage-chart.tsx)
 * and the overview's sign-ins, failures and lockouts and its daily active users (pages/overview.tsx).
 */
import { t } from './texts.js';
import { Table } from './ui.js';

/** One series: its member of each row, its words, and its colour (`series-<key>` in style/5-charts.css). */
export interface Series<K extends string> {
  key: K;
  label: string;
}

export type DayRow<K extends string> = { day: string } & Record<K, number>;

const WIDTH = 640;
const HEIGHT = 200;
/** The most day names under the bars: more would overlap (a name is about 32 units wide at 12px). */
const MOST_DAY_NAMES = 15;

function Bars<K extends string>({ id, rows, series, label }: { id: string; rows: DayRow<K>[]; series: Series<K>[]; label: string }) {
  const top = Math.max(1, ...rows.flatMap((row) => series.map((s) => row[s.key])));
  const slot = WIDTH / Math.max(1, rows.length);
  const bar = (slot - 8) / series.length;
  // One series names its figures above the bars; several would crowd them, and the table has them all.
  const figures = series.length === 1;
  // Over many days, every n-th day is named, counted back from the last (today), which is always named.
  const every = Math.ceil(rows.length / MOST_DAY_NAMES);
  return (
    <svg class="chart" id={id} viewBox={`0 0 ${WIDTH} ${HEIGHT + 34}`} role="img" aria-label={label}>
      <line x1="0" y1={HEIGHT} x2={WIDTH} y2={HEIGHT} class="axis" />
      {figures ? null : (
        // Without figures on the bars, the tallest one's height is named at a line across the chart.
        <>
          <line x1="0" y1="20" x2={WIDTH} y2="20" class="grid" />
          <text x="2" y="15" class="value">
            {top}
          </text>
        </>
      )}
      {rows.map((row, i) => (
        <g key={row.day}>
          {series.map((s, j) => {
            const count = row[s.key];
            const h = Math.round((count / top) * (HEIGHT - 20));
            const x = i * slot + 4 + j * bar;
            return (
              <g key={s.key}>
                <rect x={x} y={HEIGHT - h} width={bar} height={h} class={figures ? 'bar' : `bar series-${s.key}`} data-count={count}>
                  <title>{`${row.day} ${s.label}: ${count}`}</title>
                </rect>
                {figures && count > 0 ? (
                  <text x={x + bar / 2} y={HEIGHT - h - 4} text-anchor="middle" class="value">
                    {count}
                  </text>
                ) : null}
              </g>
            );
          })}
          {(rows.length - 1 - i) % every === 0 ? (
            // Kept half a name's width inside the edges, where narrow slots would cut it.
            <text x={Math.min(Math.max(i * slot + slot / 2, 16), WIDTH - 16)} y={HEIGHT + 16} text-anchor="middle" class="day">
              {row.day.slice(5)}
            </text>
          ) : null}
        </g>
      ))}
    </svg>
  );
}

/**
 * The chart (`{id}-chart`, its `label` said to screen readers), a legend when there are several series, and the
 * figures as a table (`{id}-table`) behind a disclosure.
 */
export function DayChart<K extends string>({ id, rows, series, label }: { id: string; rows: DayRow<K>[]; series: Series<K>[]; label: string }) {
  const c = t().chart;
  return (
    <>
      {series.length > 1 ? (
        <ul class="legend">
          {series.map((s) => (
            <li key={s.key}>
              <span class={`swatch series-${s.key}`} />
              {s.label}
            </li>
          ))}
        </ul>
      ) : null}
      <Bars id={`${id}-chart`} rows={rows} series={series} label={label} />
      <details>
        <summary id={`${id}-table-summary`}>{c.asTable}</summary>
        <Table
          id={`${id}-table`}
          caption={label}
          rows={rows}
          columns={[
            { label: c.day, render: (r: DayRow<K>) => r.day },
            ...series.map((s) => ({ label: s.label, render: (r: DayRow<K>) => r[s.key] })),
          ]}
        />
      </details>
    </>
  );
}
