import { useEffect, useState } from 'preact/hooks';
import { consoleApi, type Application } from './api';

interface SessionLine {
  id: string;
  device_type: string;
  status: string;
  document_type: string | null;
  attempts: number;
  code: string | null;
  decision: string | null;
  needs_review: boolean;
  created_time: string;
  completed_time: string | null;
}
interface Field {
  key: string;
  name: string;
  score: string;
  value: string;
}
interface Side {
  side: string;
  kind: string;
  image_id: string | null;
  fields: Field[];
  /** Each check's result by stage; `details` what each measured. */
  checks: Record<string, string>;
  details: Record<string, Record<string, unknown>>;
}
/** A side the flow refused: its code, checks and (when kept) image. */
interface Refused {
  id: string;
  side: string;
  code: string;
  image_id: string | null;
  checks: Record<string, string>;
  details: Record<string, Record<string, unknown>>;
  created_time: string;
}
interface AuditLine {
  id: string;
  session_id: string | null;
  actor: string;
  action: string;
  detail: Record<string, unknown>;
  created_time: string;
}
interface Delivery {
  id: string;
  session_id: string;
  event: string;
  url: string;
  status: string;
  attempts: number;
  response_status: number | null;
  last_error: string | null;
  created_time: string;
  updated_time: string;
}
interface SessionPage {
  session: { id: string; status: string; device_type: string; document_type: string | null; attempts: number; created_time: string; completed_time: string | null };
  sides: Side[];
  refused: Refused[];
  selfies: { image_id: string; created_time: string }[];
  result: { code: string; message: string; liveness: Record<string, string>; face_match: Record<string, string> } | null;
  fraud_memory: { reason: string; created_time: string; expires_time: string }[];
  review: { decision: string; reason: string; reviewer: string; decided_time: string } | null;
  needs_review: boolean;
  audit: AuditLine[];
  deliveries: Delivery[];
}
interface Webhook {
  url: string;
  secret_hint: string;
  secret?: string;
  updated_time: string;
}

const REVIEWER = 'saola.ekyc.reviewer';
const time = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 19) : '');
const base = (app: string) => `/apps/${encodeURIComponent(app)}/ekyc`;
/** "quality passed · reading failed ...", in the order the checks ran. */
const checkLine = (checks: Record<string, string>) =>
  Object.entries(checks)
    .map(([stage, result]) => `${stage.replace('_', '-')} ${result}`)
    .join(' · ');

function AuditTable({ rows, testId }: { rows: AuditLine[]; testId: string }) {
  if (rows.length === 0) return <p class="muted">Nothing yet.</p>;
  return (
    <table data-testid={testId}>
      <thead>
        <tr>
          <th>When</th>
          <th>Who</th>
          <th>What</th>
          <th>Details</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((a) => (
          <tr key={a.id}>
            <td>{time(a.created_time)}</td>
            <td>{a.actor}</td>
            <td>{a.action}</td>
            <td>
              {Object.entries(a.detail)
                .map(([k, v]) => `${k}: ${String(v)}`)
                .join(', ')}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function DeliveryTable({ rows, testId }: { rows: Delivery[]; testId: string }) {
  if (rows.length === 0) return <p class="muted">No webhook deliveries.</p>;
  return (
    <table data-testid={testId}>
      <thead>
        <tr>
          <th>Created</th>
          <th>Event</th>
          <th>Status</th>
          <th class="num">Tries</th>
          <th class="num">HTTP</th>
          <th>Last error</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((d) => (
          <tr key={d.id}>
            <td>{time(d.created_time)}</td>
            <td>{d.event}</td>
            <td>{d.status}</td>
            <td class="num">{d.attempts}</td>
            <td class="num">{d.response_status ?? ''}</td>
            <td>{d.last_error ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The application's webhook: URL, a secret shown once, removal. */
function WebhookCard({ app, onChange }: { app: string; onChange: () => void }) {
  const [hook, setHook] = useState<Webhook | null>(null);
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  useEffect(() => {
    setSecret('');
    setError('');
    void consoleApi<{ webhook: Webhook | null }>('GET', `${base(app)}/webhook`).then((r) => {
      setHook(r.webhook);
      setUrl(r.webhook?.url ?? '');
    });
  }, [app]);
  async function save(e: Event) {
    e.preventDefault();
    setError('');
    try {
      const r = await consoleApi<{ webhook: Webhook }>('PUT', `${base(app)}/webhook`, { url });
      setHook(r.webhook);
      setSecret(r.webhook.secret ?? '');
      onChange();
    } catch (err) {
      setError((err as Error).message);
    }
  }
  async function remove() {
    await consoleApi('DELETE', `${base(app)}/webhook`);
    setHook(null);
    setUrl('');
    setSecret('');
    onChange();
  }
  return (
    <section class="card">
      <h3>Webhook</h3>
      <p class="muted">
        Sessions that end and review decisions are POSTed here, signed: <code>X-Saola-Signature: v1=HMAC-SHA256(secret, timestamp + "." + body)</code> with{' '}
        <code>X-Saola-Timestamp</code>.
      </p>
      <form class="row" onSubmit={save}>
        <label class="grow">
          Webhook URL <input type="url" value={url} placeholder="https://example.com/ekyc-hook" onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        <button class="primary" type="submit" disabled={!url}>
          Save webhook
        </button>
        {hook && (
          <button type="button" onClick={() => void remove()}>
            Remove
          </button>
        )}
      </form>
      {hook && !secret && <p class="muted">Signing secret starts with {hook.secret_hint} (saving again makes a new one).</p>}
      {secret && (
        <div class="notice">
          <p>The signing secret, shown this once:</p>
          <div class="secret">
            <code data-testid="webhook-secret">{secret}</code>
          </div>
        </div>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

/** One session: its images, fields with scores, checks, liveness and face match, the decision and its audit trail. */
function SessionView({ app, id }: { app: string; id: string }) {
  const [page, setPage] = useState<SessionPage | null>(null);
  const [reviewer, setReviewer] = useState(sessionStorage.getItem(REVIEWER) ?? '');
  const [reason, setReason] = useState('');
  const [message, setMessage] = useState('');
  const path = `${base(app)}/sessions/${encodeURIComponent(id)}`;
  const image = (imageId: string) => `/console/api${path}/images/${encodeURIComponent(imageId)}`;
  const load = (viewer = reviewer) =>
    consoleApi<SessionPage>('GET', `${path}${viewer ? `?viewer=${encodeURIComponent(viewer)}` : ''}`).then(setPage, (e) => setMessage((e as Error).message));
  useEffect(() => {
    void load();
  }, [app, id]);
  async function decide(decision: 'approve' | 'reject') {
    setMessage('');
    sessionStorage.setItem(REVIEWER, reviewer);
    try {
      await consoleApi('POST', `${path}/review`, { decision, reason, reviewer });
      setReason('');
      setMessage(decision === 'approve' ? 'Approved' : 'Rejected');
      await load();
    } catch (err) {
      setMessage((err as Error).message);
    }
  }
  if (!page) return <p class="muted">{message || 'Loading…'}</p>;
  const { session, result } = page;
  const front = page.sides.find((s) => s.side === 'front');
  return (
    <div class="detail">
      <header class="page-head">
        <a href="#/ekyc">← Sessions</a>
        <h2>Session {session.id}</h2>
        <p class="muted" data-testid="session-state">
          {session.status} · {session.document_type ?? 'no document yet'} · {session.device_type} · started {time(session.created_time)}
          {session.completed_time ? ` · ended ${time(session.completed_time)}` : ''} · {session.attempts} selfie attempt(s)
        </p>
      </header>
      {page.sides.map((s) => (
        <section class="card" key={s.side}>
          <h3>
            {s.side === 'front' ? 'Front' : 'Back'} <span class="muted">({s.kind})</span>
          </h3>
          <div class="two">
            {s.image_id && <img class="photo desk-photo" src={image(s.image_id)} alt={`${s.side} of the document`} />}
            <div>
              <table>
                <thead>
                  <tr>
                    <th>Field</th>
                    <th>Value</th>
                    <th class="num">Score</th>
                  </tr>
                </thead>
                <tbody>
                  {s.fields.map((f) => (
                    <tr key={f.key}>
                      <td>{f.key}</td>
                      <td>{f.value}</td>
                      <td class="num">{f.score}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p class="muted">{checkLine(s.checks)}</p>
            </div>
          </div>
        </section>
      ))}
      {page.refused.length > 0 && (
        <section class="card" data-testid="refused-sides">
          <h3>Refused sides</h3>
          {page.refused.map((r) => (
            <div class="two" key={r.id}>
              {r.image_id ? <img class="thumb" src={image(r.image_id)} alt={`refused ${r.side}`} /> : <p class="muted">Image not kept</p>}
              <div>
                <p>
                  {r.side === 'front' ? 'Front' : 'Back'} refused with <strong>{r.code}</strong> · {time(r.created_time)}
                </p>
                <p class="muted">{checkLine(r.checks)}</p>
                <details>
                  <summary>Measures</summary>
                  <pre>{JSON.stringify(r.details, null, 2)}</pre>
                </details>
              </div>
            </div>
          ))}
        </section>
      )}
      <section class="card">
        <h3>Liveness and face match</h3>
        {result ? (
          <p data-testid="session-result">
            Code {result.code} ({result.message}) · live {result.liveness.is_live ?? '?'} (spoof {result.liveness.spoof_prob ?? '?'}) · match{' '}
            {result.face_match.isMatch ?? '?'}, similarity {result.face_match.similarity ?? '?'}
          </p>
        ) : (
          <p class="muted">No selfie yet.</p>
        )}
        <div class="row">
          {front?.image_id && (
            <figure>
              <img class="thumb" src={image(front.image_id)} alt="document portrait side" />
              <figcaption class="muted">Document</figcaption>
            </figure>
          )}
          {page.selfies.map((s, i) => (
            <figure key={s.image_id}>
              <img class="thumb" src={image(s.image_id)} alt={`selfie ${i + 1}`} />
              <figcaption class="muted">Selfie {i + 1}</figcaption>
            </figure>
          ))}
        </div>
        {page.fraud_memory.length > 0 && <p class="error">Fraud memory: {page.fraud_memory.map((f) => `${f.reason} (until ${time(f.expires_time)})`).join(', ')}</p>}
      </section>
      <section class="card">
        <h3>Decision</h3>
        <p data-testid="session-review">
          {page.review
            ? `${page.review.decision} by ${page.review.reviewer} at ${time(page.review.decided_time)}: ${page.review.reason}`
            : page.needs_review
              ? 'Needs review'
              : 'Not ended yet'}
        </p>
        <div class="row">
          <label>
            Reviewer <input value={reviewer} onInput={(e) => setReviewer(e.currentTarget.value)} />
          </label>
          <label class="grow">
            Reason <input value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          </label>
          <button class="primary" disabled={!reviewer.trim() || !reason.trim() || session.status === 'open'} onClick={() => void decide('approve')}>
            Approve
          </button>
          <button disabled={!reviewer.trim() || !reason.trim() || session.status === 'open'} onClick={() => void decide('reject')}>
            Reject
          </button>
        </div>
        {message && (
          <p class="muted" data-testid="session-message">
            {message}
          </p>
        )}
      </section>
      <section class="card">
        <header class="row">
          <h3>Audit trail and webhook deliveries</h3>
          <div class="actions">
            <button onClick={() => void load('')}>Refresh</button>
          </div>
        </header>
        <AuditTable rows={page.audit} testId="session-audit" />
        <DeliveryTable rows={page.deliveries} testId="session-deliveries" />
      </section>
    </div>
  );
}

/** The eKYC review desk: an application's sessions with filters, its webhook, deliveries and audit trail. */
export function EkycDeskPage({ apps, hash }: { apps: Application[]; hash: string }) {
  const [, appInHash, sessionInHash] = /^#\/ekyc\/([^/]+)\/([^/]+)/.exec(hash) ?? [];
  const [app, setApp] = useState(appInHash ? decodeURIComponent(appInHash) : '');
  const [status, setStatus] = useState('');
  const [needsReview, setNeedsReview] = useState(false);
  const [documentType, setDocumentType] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [sessions, setSessions] = useState<SessionLine[]>([]);
  const [deliveries, setDeliveries] = useState<Delivery[]>([]);
  const [audit, setAudit] = useState<AuditLine[]>([]);
  const [error, setError] = useState('');
  useEffect(() => {
    if (!app && apps[0]) setApp(apps[0].app_code);
  }, [apps]);
  async function load() {
    if (!app) return;
    setError('');
    const q = new URLSearchParams();
    if (status) q.set('status', status);
    if (needsReview) q.set('needs_review', 'true');
    if (documentType) q.set('document_type', documentType);
    if (from) q.set('from', from);
    if (to) q.set('to', to);
    try {
      const [s, d, a] = await Promise.all([
        consoleApi<{ sessions: SessionLine[] }>('GET', `${base(app)}/sessions?${q.toString()}`),
        consoleApi<{ deliveries: Delivery[] }>('GET', `${base(app)}/deliveries`),
        consoleApi<{ audit: AuditLine[] }>('GET', `${base(app)}/audit`),
      ]);
      setSessions(s.sessions);
      setDeliveries(d.deliveries);
      setAudit(a.audit);
    } catch (err) {
      setError((err as Error).message);
    }
  }
  useEffect(() => {
    if (!sessionInHash) void load();
  }, [app, status, needsReview, documentType, from, to, sessionInHash]);
  if (appInHash && sessionInHash) return <SessionView app={decodeURIComponent(appInHash)} id={decodeURIComponent(sessionInHash)} />;
  return (
    <div>
      <header class="page-head">
        <h2>eKYC review</h2>
        <p class="muted">
          The sessions of the eKYC flow: open one to see its images, fields and checks, and approve or reject it. Every decision and view is in the audit trail.
        </p>
      </header>
      <section class="card row">
        <label>
          Application{' '}
          <select value={app} onChange={(e) => setApp(e.currentTarget.value)}>
            {apps.map((a) => (
              <option key={a.app_code} value={a.app_code}>
                {a.name} ({a.app_code})
              </option>
            ))}
          </select>
        </label>
        <label>
          Status{' '}
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">any</option>
            <option value="open">open</option>
            <option value="complete">complete</option>
            <option value="failed">failed</option>
          </select>
        </label>
        <label>
          <input type="checkbox" checked={needsReview} onChange={(e) => setNeedsReview(e.currentTarget.checked)} /> Needs review
        </label>
        <label>
          Document type{' '}
          <select value={documentType} onChange={(e) => setDocumentType(e.currentTarget.value)}>
            <option value="">any</option>
            <option value="idr">ID card</option>
            <option value="dlr">driving licence</option>
            <option value="passport">passport</option>
          </select>
        </label>
        <label>
          From <input type="date" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        </label>
        <label>
          To <input type="date" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
        </label>
      </section>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <section class="card">
        {sessions.length === 0 ? (
          <p class="muted">No sessions match.</p>
        ) : (
          <table data-testid="desk-sessions">
            <thead>
              <tr>
                <th>Started</th>
                <th>Status</th>
                <th>Document</th>
                <th>Code</th>
                <th>Decision</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <tr key={s.id} data-testid="desk-session">
                  <td>{time(s.created_time)}</td>
                  <td>{s.status}</td>
                  <td>{s.document_type ?? ''}</td>
                  <td>{s.code ?? ''}</td>
                  <td>{s.decision ?? (s.needs_review ? 'needs review' : '')}</td>
                  <td>
                    <a href={`#/ekyc/${encodeURIComponent(app)}/${encodeURIComponent(s.id)}`} title={s.id}>
                      Open
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {app && <WebhookCard app={app} onChange={() => void load()} />}
      <section class="card">
        <header class="row">
          <h3>Webhook deliveries</h3>
          <div class="actions">
            <button onClick={() => void load()}>Refresh</button>
          </div>
        </header>
        <DeliveryTable rows={deliveries} testId="desk-deliveries" />
      </section>
      <section class="card">
        <h3>Audit trail</h3>
        <AuditTable rows={audit} testId="desk-audit" />
      </section>
    </div>
  );
}
