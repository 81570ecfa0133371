import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../../core/api/client';
import { type StatTable, loadStat, statCsvUrl } from '../../core/admin/admin.api';
import type { StatMetric } from '../../shared/admin.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';

interface Props extends IslandI18n {
  /** Today (UTC), ISO date. */
  to: string;
  /** The site's main currency, for the revenue chart. */
  currency: string;
}

const CHARTS: StatMetric[] = ['signups', 'activations', 'active_members', 'messages', 'likes', 'matches'];
const TABLES: StatMetric[] = ['revenue', 'refunds', 'funnel'];
const COLOURS = ['#c2185b', '#1f5fa8', '#2f7a3d', '#7a1f2b'];
const RANGES = [{ key: 'today', days: 1 }, { key: 'days7', days: 7 }, { key: 'days30', days: 30 }] as const;
const DAY_MS = 86_400_000;
const minus = (iso: string, days: number) => new Date(Date.parse(`${iso}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);
/** Whole-number steps for count axes. */
const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 1_000_000];

interface ChartSpec { key: string; title: string; table: StatTable; money?: string }

/** A line chart of one daily series (uPlot, loaded only here): named legend, whole-number or currency axis, fits its box. */
function Chart({ spec, locale, dayLabel }: { spec: ChartSpec; locale: string; dayLabel: string }) {
  const box = useRef<HTMLDivElement>(null);
  const { table, money } = spec;
  const label = useIslandT({ locale });
  useEffect(() => {
    let plot: { destroy(): void; setSize(s: { width: number; height: number }): void } | null = null;
    let cancelled = false;
    let observer: ResizeObserver | null = null;
    const num = new Intl.NumberFormat(locale, money ? { style: 'currency', currency: money, maximumFractionDigits: 0 } : { maximumFractionDigits: 0 });
    const exact = money ? new Intl.NumberFormat(locale, { style: 'currency', currency: money }) : num;
    const day = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' });
    const fullDay = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
    void Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]).then(([{ default: UPlot }]) => {
      if (cancelled || !box.current) return;
      const x = table.rows.map((r) => Date.parse(`${r[0]}T00:00:00Z`) / 1000);
      const ys = table.columns.slice(1).map((_, i) => table.rows.map((r) => Number(r[i + 1])));
      const width = () => Math.max(200, box.current?.clientWidth ?? 300);
      plot = new UPlot({
        width: width(), height: 220,
        series: [
          { label: dayLabel, value: (_u: unknown, v: number | null) => (v === null ? '—' : fullDay.format(new Date(v * 1000))) },
          ...table.columns.slice(1).map((c, i) => ({
            label: money ? label(`admin.stat.${spec.key}`) : label(`admin.stat.${c}`), stroke: COLOURS[i % COLOURS.length], width: 2,
            points: { show: table.rows.length < 40 },
            value: (_u: unknown, v: number | null) => (v === null ? '—' : exact.format(v)),
          })),
        ],
        axes: [
          { values: (_u: unknown, splits: number[]) => splits.map((s) => day.format(new Date(s * 1000))) },
          { size: money ? 72 : 48, values: (_u: unknown, splits: number[]) => splits.map((s) => num.format(s)), ...(money ? {} : { incrs: COUNT_STEPS }) },
        ],
        scales: { x: { time: true }, y: { range: (_u: unknown, _min: number, max: number) => [0, Math.max(money ? 10 : 4, Math.ceil(max * 1.1))] } },
      } as never, [x, ...ys], box.current);
      observer = new ResizeObserver(() => plot?.setSize({ width: width(), height: 220 }));
      observer.observe(box.current);
    });
    return () => {
      cancelled = true;
      observer?.disconnect();
      plot?.destroy();
    };
  }, [table, money, locale, dayLabel, label, spec.key]);
  return <div ref={box} data-chart={spec.key} />;
}

/** Net revenue per day in the main currency, from the revenue table (paid, less refunds of the same days). */
function revenueSeries(revenue: StatTable, refunds: StatTable | undefined, currency: string, from: string, to: string): StatTable {
  const byDay = new Map<string, number>();
  for (const r of revenue.rows) if (r[3] === currency) byDay.set(String(r[0]), (byDay.get(String(r[0])) ?? 0) + Number(r[5]));
  for (const r of refunds?.rows ?? []) if (r[1] === currency) byDay.set(String(r[0]), (byDay.get(String(r[0])) ?? 0) - Number(r[3]) - Number(r[4]));
  const rows: (string | number)[][] = [];
  for (let d = from; d <= to; d = minus(d, -1)) rows.push([d, Math.round((byDay.get(d) ?? 0) * 100) / 100]);
  return { metric: 'revenue', columns: ['day', 'net_revenue'], rows };
}

/** The dashboard: ranges, daily charts (two per row on wide screens) and tables of one site, each with its CSV export. */
export function Dashboard(props: Props) {
  const t = useIslandT(props);
  const [range, setRange] = useState({ key: 'days30', from: minus(props.to, 29), to: props.to });
  const [tables, setTables] = useState<Partial<Record<StatMetric, StatTable>>>({});
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stale = false;
    setError(null);
    Promise.all([...CHARTS, ...TABLES].map((m) => loadStat(m, range.from, range.to)))
      .then((all) => { if (!stale) setTables(Object.fromEntries(all.map((tb) => [tb.metric, tb]))); })
      .catch((err) => { if (!stale) setError(err instanceof ApiError ? err.message : t('error.try_later')); });
    return () => { stale = true; };
  }, [range, t]);
  const label = (column: string) => t(`admin.stat.${column}`);
  const cell = (metric: StatMetric, column: string, value: string | number, row: (string | number)[]) => {
    if (column === 'method') return t(`payments.method.${value}`, { defaultValue: String(value) });
    if (['amount', 'refunded', 'charged_back'].includes(column)) {
      const currency = String(row[metric === 'revenue' ? 3 : 1]);
      return new Intl.NumberFormat(props.locale, { style: 'currency', currency }).format(Number(value));
    }
    return value;
  };
  const apply = (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const d = new FormData(e.currentTarget);
    setRange({ key: 'custom', from: String(d.get('from')), to: String(d.get('to')) });
  };
  const csv = (m: StatMetric, title: string) => (
    <a href={statCsvUrl(m, range.from, range.to)} download>{t('admin.csv')}<span className="visually-hidden"> ({title})</span></a>
  );
  const charts: ChartSpec[] = CHARTS.flatMap((m) => (tables[m] ? [{ key: m, title: t(`admin.stat.${m}`), table: tables[m] }] : []));
  if (tables.revenue) charts.splice(2, 0, { key: 'net_revenue', title: t('admin.stat.net_revenue_in', { currency: props.currency }), table: revenueSeries(tables.revenue, tables.refunds, props.currency, range.from, range.to), money: props.currency });
  return (
    <>
      <h2 className="admin-tiles-h">{t('admin.charts')}</h2>
      <div className="admin-ranges" role="group" aria-label={t('admin.range')}>
        {RANGES.map((r) => (
          <button key={r.key} type="button" className="btn btn-outline" aria-pressed={range.key === r.key}
            onClick={() => setRange({ key: r.key, from: minus(props.to, r.days - 1), to: props.to })}>{t(`admin.range_${r.key}`)}</button>
        ))}
        <form className="admin-inline-form" onSubmit={apply}>
          <label>{t('admin.field.from')}<input type="date" name="from" defaultValue={range.from} key={`f${range.from}`} required /></label>
          <label>{t('admin.field.to')}<input type="date" name="to" defaultValue={range.to} key={`t${range.to}`} required /></label>
          <button type="submit" className="btn btn-outline" aria-pressed={range.key === 'custom'}>{t('admin.range_custom')}</button>
        </form>
      </div>
      {error && <p className="alert alert-danger" role="alert">{error}</p>}
      <div className="admin-charts">
        {charts.length === 0 && <p>{t('admin.loading')}</p>}
        {charts.map((c) => (
          <section key={c.key} className="admin-chart" aria-label={c.title}>
            <h2>{c.title} {csv(c.key === 'net_revenue' ? 'revenue' : (c.key as StatMetric), c.title)}</h2>
            <Chart spec={c} locale={props.locale} dayLabel={t('admin.stat.day')} />
          </section>
        ))}
      </div>
      {TABLES.map((m) => (
        <section key={m} aria-label={t(`admin.stat.${m}`)}>
          <h2>{t(`admin.stat.${m}`)} {csv(m, t(`admin.stat.${m}`))}</h2>
          {tables[m] && (tables[m].rows.length === 0 ? <p>{t('admin.none')}</p> : (
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a table that scrolls sideways on phones must be reachable by keyboard (axe scrollable-region-focusable); it is a named region
            <div className="admin-table-wrap" tabIndex={0} role="region" aria-label={t(`admin.stat.${m}`)}>
              <table className="admin-table" data-table={m}>
                <thead><tr>{tables[m].columns.map((c) => <th key={c}>{label(c)}</th>)}</tr></thead>
                <tbody>{tables[m].rows.map((r) => <tr key={r.join('|')}>{r.map((v, j) => {
                  const column = tables[m]?.columns[j] ?? '';
                  return <td key={column} data-column={column}>{cell(m, column, v, r)}</td>;
                })}</tr>)}</tbody>
              </table>
            </div>
          ))}
        </section>
      ))}
    </>
  );
}
