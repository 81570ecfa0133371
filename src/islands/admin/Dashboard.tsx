import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../../core/api/client';
import { type StatTable, loadStat, statCsvUrl } from '../../core/admin/admin.api';
import type { StatMetric } from '../../shared/admin.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';

interface Props extends IslandI18n { from: string; to: string }

const CHARTS: StatMetric[] = ['signups', 'activations', 'active_members', 'messages', 'likes', 'matches'];
const TABLES: StatMetric[] = ['revenue', 'refunds', 'funnel'];
const COLOURS = ['#e5646e', '#7a1f2b', '#2b6cb0', '#2f855a'];

/** A line chart of one daily series (uPlot, loaded only here, on the console's dashboard). */
function Chart({ table, label }: { table: StatTable; label: (column: string) => string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let plot: { destroy(): void } | null = null;
    let cancelled = false;
    void Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]).then(([{ default: UPlot }]) => {
      if (cancelled || !box.current) return;
      const x = table.rows.map((r) => Date.parse(`${r[0]}T00:00:00Z`) / 1000);
      const ys = table.columns.slice(1).map((_, i) => table.rows.map((r) => Number(r[i + 1])));
      const width = Math.max(260, box.current.clientWidth);
      plot = new UPlot({
        width, height: 220,
        series: [{}, ...table.columns.slice(1).map((c, i) => ({ label: label(c), stroke: COLOURS[i % COLOURS.length], width: 2 }))],
        axes: [{}, { size: 40 }],
        scales: { x: { time: true } },
      }, [x, ...ys], box.current);
    });
    return () => {
      cancelled = true;
      plot?.destroy();
    };
  }, [table, label]);
  return <div ref={box} data-chart={table.metric} />;
}

/** The dashboard: daily charts and tables of one site, each with its CSV export. */
export function Dashboard(props: Props) {
  const t = useIslandT(props);
  const [range, setRange] = useState({ from: props.from, to: props.to });
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
  const apply = (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const d = new FormData(e.currentTarget);
    setRange({ from: String(d.get('from')), to: String(d.get('to')) });
  };
  const csv = (m: StatMetric) => <a href={statCsvUrl(m, range.from, range.to)} download>{t('admin.csv')}</a>;
  return (
    <>
      <form className="admin-inline-form" onSubmit={apply}>
        <label>{t('admin.field.from')}<input type="date" name="from" defaultValue={range.from} required /></label>
        <label>{t('admin.field.to')}<input type="date" name="to" defaultValue={range.to} required /></label>
        <button type="submit" className="btn btn-outline">{t('admin.show')}</button>
      </form>
      {error && <p className="alert alert-danger" role="alert">{error}</p>}
      <div className="admin-charts">
        {CHARTS.map((m) => (
          <section key={m} className="admin-chart" aria-label={t(`admin.stat.${m}`)}>
            <h2>{t(`admin.stat.${m}`)} {csv(m)}</h2>
            {tables[m] ? <Chart table={tables[m]} label={label} /> : <p>{t('admin.loading')}</p>}
          </section>
        ))}
      </div>
      {TABLES.map((m) => (
        <section key={m} aria-label={t(`admin.stat.${m}`)}>
          <h2>{t(`admin.stat.${m}`)} {csv(m)}</h2>
          {tables[m] && (tables[m].rows.length === 0 ? <p>{t('admin.none')}</p> : (
            <div className="admin-table-wrap">
              <table className="admin-table" data-table={m}>
                <thead><tr>{tables[m].columns.map((c) => <th key={c}>{label(c)}</th>)}</tr></thead>
                <tbody>{tables[m].rows.map((r) => <tr key={r.join('|')}>{r.map((v, j) => <td key={tables[m]?.columns[j]}>{v}</td>)}</tr>)}</tbody>
              </table>
            </div>
          ))}
        </section>
      ))}
    </>
  );
}
