import type { UsageDay } from './api';

export const SERVICE_COLOURS: Record<string, string> = {
  nlu: '#6366f1',
  reader: '#0ea5e9',
  face: '#f59e0b',
  tts: '#10b981',
  asr: '#ec4899',
  credit: '#8b5cf6',
};

function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(from + 'T00:00:00Z'); t <= Date.parse(to + 'T00:00:00Z'); t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** A round axis top at or above `n` (1, 2, 5 times a power of ten, times 4 steps), so every tick is a whole number. */
function niceTop(n: number): number {
  if (n <= 4) return 4;
  const raw = n / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  return step * 4;
}

/** Requests per day, stacked by service, with errors marked in red on top of each bar. Plain SVG: nothing to download. */
export function RequestsChart({ days, from, to, services }: { days: UsageDay[]; from: string; to: string; services: string[] }) {
  const axis = daysBetween(from, to);
  const byDay = new Map<string, UsageDay[]>();
  for (const d of days) byDay.set(d.day, [...(byDay.get(d.day) ?? []), d]);
  const totals = axis.map((day) => (byDay.get(day) ?? []).reduce((s, d) => s + d.count, 0));
  const max = niceTop(Math.max(1, ...totals));
  const width = 720;
  const height = 220;
  const left = 44;
  const bottom = 28;
  const plotH = height - bottom - 10;
  const slot = (width - left) / axis.length;
  const barW = Math.max(4, slot * 0.6);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => max * f).filter((t) => Number.isInteger(t));
  return (
    <figure class="chart" data-testid="usage-chart" data-total={totals.reduce((a, b) => a + b, 0)}>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label="Requests per day by service">
        {ticks.map((t) => {
          const y = 10 + plotH - (t / max) * plotH;
          return (
            <g key={t}>
              <line x1={left} x2={width} y1={y} y2={y} class="grid" />
              <text x={left - 6} y={y + 4} text-anchor="end" class="tick">
                {t}
              </text>
            </g>
          );
        })}
        {axis.map((day, i) => {
          let y = 10 + plotH;
          const x = left + i * slot + (slot - barW) / 2;
          const parts = (byDay.get(day) ?? []).slice().sort((a, b) => services.indexOf(a.service) - services.indexOf(b.service));
          const errors = parts.reduce((s, d) => s + d.errors, 0);
          return (
            <g key={day}>
              {parts.map((p) => {
                const h = (p.count / max) * plotH;
                y -= h;
                return (
                  <rect key={p.service} x={x} y={y} width={barW} height={Math.max(h, 0.5)} fill={SERVICE_COLOURS[p.service] ?? '#94a3b8'} rx={2}>
                    <title>{`${day} ${p.service}: ${p.count} requests, ${p.errors} errors`}</title>
                  </rect>
                );
              })}
              {errors > 0 && <rect x={x} y={10 + plotH - (totals[i] / max) * plotH - 3} width={barW} height={3} fill="#ef4444" />}
              {(axis.length <= 14 || i % Math.ceil(axis.length / 14) === 0) && (
                <text x={x + barW / 2} y={height - 8} text-anchor="middle" class="tick">
                  {day.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        {services.map((s) => (
          <span key={s} class="legend">
            <i style={{ background: SERVICE_COLOURS[s] }} /> {s}
          </span>
        ))}
        <span class="legend">
          <i style={{ background: '#ef4444' }} /> errors
        </span>
      </figcaption>
    </figure>
  );
}
