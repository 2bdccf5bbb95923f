import { useEffect, useState } from 'preact/hooks';
import type { NluApi } from './nlu-api';

interface Score {
  precision: number;
  recall: number;
  f1: number;
  support: number;
}
interface Report {
  model_code: string;
  state: 'waiting' | 'ready' | 'failed' | 'stale';
  message: string;
  folds: number;
  samples: number;
  intents: { accuracy: number; macro_f1: number; per_intent: (Score & { intent: string })[] };
  confusions: { expected: string; predicted: string; count: number }[];
  entities: { micro: Score; per_label: (Score & { entity: string })[] };
  confused_samples: { text: string; expected: string; predicted: string; confidence: number }[];
}
interface Change {
  from: number;
  to: number;
  change: number;
}
interface Comparison {
  accuracy: Change;
  macro_f1: Change;
  entity_f1: Change;
  intents: (Change & { intent: string })[];
  confusions_new: { expected: string; predicted: string; count: number }[];
  confusions_gone: { expected: string; predicted: string; count: number }[];
}

const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
const signed = (n: number) => `${n >= 0 ? '+' : ''}${(n * 100).toFixed(1)}`;

/** The cross-validated report of the newest model and what changed since the version before. */
export function ModelReportPanel({ api, modelCode }: { api: NluApi; modelCode: string }) {
  const [report, setReport] = useState<Report | null>(null);
  const [comparison, setComparison] = useState<Comparison | null>(null);
  const [message, setMessage] = useState('');
  async function load() {
    const r = await api<Report>('GET', `/train/report?model_code=${encodeURIComponent(modelCode)}`);
    setReport(r);
    if (r.state === 'ready') setComparison(await api<Comparison>('GET', `/train/report/compare?to=${encodeURIComponent(modelCode)}`).catch(() => null));
  }
  useEffect(() => {
    setReport(null);
    setComparison(null);
    setMessage('');
    if (modelCode) load().catch((e) => setMessage((e as Error).message));
  }, [modelCode]);
  // The report is made after the model: look again until it is.
  useEffect(() => {
    if (report?.state !== 'waiting') return;
    const timer = setTimeout(() => load().catch((e) => setMessage((e as Error).message)), 1000);
    return () => clearTimeout(timer);
  }, [report]);
  if (!modelCode) return null;
  if (!report) return message ? <p class="muted">{message}</p> : null;
  if (report.state !== 'ready')
    return (
      <p class="muted" data-testid="nlu-report">
        Cross-validated report: {report.state === 'waiting' ? 'being made…' : report.message}
      </p>
    );
  const changeOf = new Map((comparison?.intents ?? []).map((c) => [c.intent, c]));
  return (
    <div data-testid="nlu-report">
      <h4>
        Cross-validated report ({report.folds} folds, {report.samples} samples)
      </h4>
      <p>
        Intent accuracy {pct(report.intents.accuracy)}, macro F1 {pct(report.intents.macro_f1)}
        {comparison && <span class="muted"> ({signed(comparison.macro_f1.change)} since the previous model)</span>}
        {report.entities.per_label.length > 0 && ` · entity F1 ${pct(report.entities.micro.f1)}`}
      </p>
      <table data-testid="nlu-report-intents">
        <thead>
          <tr>
            <th>Intent (weakest first)</th>
            <th>Precision</th>
            <th>Recall</th>
            <th>F1</th>
            <th>Samples</th>
            <th>F1 change</th>
          </tr>
        </thead>
        <tbody>
          {report.intents.per_intent.map((r) => (
            <tr key={r.intent}>
              <td>{r.intent}</td>
              <td>{pct(r.precision)}</td>
              <td>{pct(r.recall)}</td>
              <td>{pct(r.f1)}</td>
              <td>{r.support}</td>
              <td class="muted">{changeOf.has(r.intent) ? signed(changeOf.get(r.intent)!.change) : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {report.entities.per_label.length > 0 && (
        <p>
          Entities:{' '}
          {report.entities.per_label.map((r) => (
            <span key={r.entity} class="muted">
              {r.entity} F1 {pct(r.f1)} ({r.support}){' '}
            </span>
          ))}
        </p>
      )}
      {report.confusions.length > 0 && (
        <p>
          Confused:{' '}
          {report.confusions.map((c) => (
            <span key={`${c.expected}>${c.predicted}`} class="muted">
              {c.expected} → {c.predicted} ×{c.count}{' '}
            </span>
          ))}
        </p>
      )}
      {report.confused_samples.length > 0 && (
        <ul>
          {report.confused_samples.slice(0, 10).map((s) => (
            <li key={s.text}>
              “{s.text}”{' '}
              <span class="muted">
                is {s.expected}, predicted {s.predicted} ({pct(s.confidence)})
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
