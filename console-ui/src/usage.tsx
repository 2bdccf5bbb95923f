import { useEffect, useRef, useState } from 'preact/hooks';
import { consoleApi, type Application, type UsageReport } from './api';
import { RequestsChart } from './chart';

export function AppPicker({ apps, value, onChange }: { apps: Application[]; value: string; onChange: (code: string) => void }) {
  return (
    <label class="inline">
      Application
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)} aria-label="Application">
        {apps.map((a) => (
          <option key={a.app_code} value={a.app_code}>
            {a.name}
          </option>
        ))}
      </select>
    </label>
  );
}

const ms = (v: number | null) => (v === null ? '—' : `${v} ms`);

export function UsagePage({ apps, services }: { apps: Application[]; services: string[] }) {
  const [app, setApp] = useState('');
  const [days, setDays] = useState(14);
  const [report, setReport] = useState<UsageReport | null>(null);
  const [error, setError] = useState('');
  const code = app || apps[0]?.app_code || '';
  // Only the latest request's answer is shown: picking another application while the first report is
  // still on its way must not let that older answer land last and stay on screen.
  const latest = useRef(0);
  const load = () => {
    if (!code) return;
    const ticket = ++latest.current;
    setError('');
    consoleApi<UsageReport>('GET', `/apps/${code}/usage?days=${days}`).then(
      (r) => ticket === latest.current && setReport(r),
      (err) => ticket === latest.current && setError((err as Error).message),
    );
  };
  useEffect(load, [code, days]);
  if (apps.length === 0) return <p class="empty">No applications yet: create one under Applications.</p>;
  return (
    <>
      <header class="page-head row">
        <h2>Usage</h2>
        <div class="spacer" />
        <AppPicker apps={apps} value={code} onChange={setApp} />
        <select value={days} onChange={(e) => setDays(Number(e.currentTarget.value))} aria-label="Period">
          <option value={7}>7 days</option>
          <option value={14}>14 days</option>
          <option value={30}>30 days</option>
          <option value={90}>90 days</option>
        </select>
        <button onClick={load}>Refresh</button>
      </header>
      {error && <p class="error">{error}</p>}
      {report && (
        <>
          <div class="stats">
            <div class="stat">
              <span class="muted">Requests</span>
              <strong data-testid="usage-total">{report.total}</strong>
            </div>
            <div class="stat">
              <span class="muted">Errors</span>
              <strong>{report.errors}</strong>
            </div>
            <div class="stat">
              <span class="muted">Error rate</span>
              <strong>{report.total ? `${((100 * report.errors) / report.total).toFixed(1)}%` : '—'}</strong>
            </div>
          </div>
          <section class="card">
            <h3>Requests per day</h3>
            <RequestsChart days={report.days} from={report.from} to={report.to} services={services} />
          </section>
          <section class="card">
            <h3>Endpoints</h3>
            <p class="muted">Latency is measured in the server from request to answer; percentiles are read from buckets (within about 1.5×).</p>
            <table data-testid="usage-endpoints">
              <thead>
                <tr>
                  <th>Service</th>
                  <th>Endpoint</th>
                  <th class="num">Requests</th>
                  <th class="num">Errors</th>
                  <th class="num">p50</th>
                  <th class="num">p95</th>
                  <th class="num">max</th>
                </tr>
              </thead>
              <tbody>
                {report.endpoints.length === 0 && (
                  <tr>
                    <td colSpan={7} class="muted">
                      No requests in this period. Calls appear here within seconds.
                    </td>
                  </tr>
                )}
                {report.endpoints.map((e) => (
                  <tr key={e.service + e.endpoint}>
                    <td>{e.service}</td>
                    <td>
                      <code>{e.endpoint}</code>
                    </td>
                    <td class="num">{e.count}</td>
                    <td class="num">{e.errors}</td>
                    <td class="num">{ms(e.p50_ms)}</td>
                    <td class="num">{ms(e.p95_ms)}</td>
                    <td class="num">{e.max_ms} ms</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}
    </>
  );
}
