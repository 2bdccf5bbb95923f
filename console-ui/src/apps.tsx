import { useEffect, useState } from 'preact/hooks';
import { consoleApi, rememberKey, type Application, type CredentialInfo, type Quota } from './api';
import { AllowedOrigins, SettingsSections } from './app-sections';

export function CopyField({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret">
      <span class="muted">{label}</span>
      <code data-testid={`secret-${label}`}>{value}</code>
      <button
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(value);
          } catch {
            // Clipboard refused (no HTTPS, no permission): select the text for a manual copy.
            const range = document.createRange();
            const code = document.querySelector(`[data-testid="secret-${label}"]`);
            if (code) range.selectNodeContents(code);
            getSelection()?.removeAllRanges();
            getSelection()?.addRange(range);
          }
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        }}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

const TABLE_NAMES: Record<string, string> = {
  credentials: 'API keys and tokens',
  jobs: 'jobs',
  nlu_intents: 'NLU intents',
  nlu_samples: 'NLU samples',
  nlu_entities: 'NLU entities',
  usage_daily: 'usage rows',
  usage_quotas: 'quotas',
};

function describeRecords(records: Record<string, number>): string[] {
  return Object.entries(records).map(([table, n]) => `${n} ${TABLE_NAMES[table] ?? table.replace(/_/g, ' ')}`);
}

function Credentials({ app }: { app: Application }) {
  const [list, setList] = useState<CredentialInfo[]>([]);
  const [fresh, setFresh] = useState<{ kind: string; secret: string } | null>(null);
  const [error, setError] = useState('');
  const load = () => consoleApi<{ credentials: CredentialInfo[] }>('GET', `/apps/${app.app_code}/credentials`).then((r) => setList(r.credentials));
  useEffect(() => {
    setFresh(null);
    void load();
  }, [app.app_code]);
  async function create(kind: 'api_key' | 'token') {
    setError('');
    try {
      const r = await consoleApi<{ secret: string }>('POST', `/apps/${app.app_code}/credentials`, { kind });
      rememberKey(app.app_code, kind, r.secret);
      setFresh({ kind, secret: r.secret });
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  }
  async function revoke(c: CredentialInfo) {
    if (!confirm(`Revoke ${c.kind === 'api_key' ? 'API key' : 'token'} ${c.prefix}…? Clients using it get 401 at once.`)) return;
    await consoleApi('DELETE', `/credentials/${c.id}`);
    await load();
  }
  return (
    <section class="card">
      <header class="row">
        <h3>API keys and tokens</h3>
        <div class="actions">
          <button onClick={() => create('api_key')} disabled={app.revoked}>
            New API key
          </button>
          <button onClick={() => create('token')} disabled={app.revoked}>
            New bearer token
          </button>
        </div>
      </header>
      {fresh && (
        <div class="notice">
          <p>
            <strong>Copy it now:</strong> the {fresh.kind === 'api_key' ? 'API key' : 'token'} is shown only once (only its hash is stored).
          </p>
          <CopyField label={fresh.kind} value={fresh.secret} />
        </div>
      )}
      {error && <p class="error">{error}</p>}
      <table>
        <thead>
          <tr>
            <th>Kind</th>
            <th>Starts with</th>
            <th>Created</th>
            <th>Last used</th>
            <th>State</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {list.map((c) => (
            <tr key={c.id} class={c.revoked_time ? 'dim' : ''}>
              <td>{c.kind === 'api_key' ? 'API key (api_key header)' : 'Bearer token (/api/v3)'}</td>
              <td>
                <code>{c.prefix}…</code>
              </td>
              <td>{c.created_time.slice(0, 16).replace('T', ' ')}</td>
              <td>{c.last_used_time ? c.last_used_time.slice(0, 16).replace('T', ' ') : 'never'}</td>
              <td>{c.revoked_time ? `revoked ${c.revoked_time.slice(0, 10)}` : 'active'}</td>
              <td>
                {!c.revoked_time && (
                  <button class="link danger" onClick={() => revoke(c)}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Quotas({ app, services }: { app: Application; services: string[] }) {
  const [quotas, setQuotas] = useState<Quota[]>([]);
  const [service, setService] = useState(services[0] ?? 'nlu');
  const [perMinute, setPerMinute] = useState('');
  const [perDay, setPerDay] = useState('');
  const [error, setError] = useState('');
  useEffect(() => {
    void consoleApi<{ quotas: Quota[] }>('GET', `/apps/${app.app_code}/quotas`).then((r) => setQuotas(r.quotas));
  }, [app.app_code]);
  async function save(e: Event) {
    e.preventDefault();
    setError('');
    try {
      const r = await consoleApi<{ quotas: Quota[] }>('PUT', `/apps/${app.app_code}/quotas`, { service, per_minute: perMinute || null, per_day: perDay || null });
      setQuotas(r.quotas);
    } catch (err) {
      setError((err as Error).message);
    }
  }
  return (
    <section class="card">
      <h3>Quotas</h3>
      <p class="muted">Requests per minute and per UTC day, per service. Past a limit the service answers 429 with Retry-After. Empty means no limit.</p>
      <table>
        <thead>
          <tr>
            <th>Service</th>
            <th>Per minute</th>
            <th>Per day</th>
          </tr>
        </thead>
        <tbody>
          {quotas.length === 0 && (
            <tr>
              <td colSpan={3} class="muted">
                No limits.
              </td>
            </tr>
          )}
          {quotas.map((q) => (
            <tr key={q.service}>
              <td>{q.service}</td>
              <td>{q.per_minute ?? '—'}</td>
              <td>{q.per_day ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="row" onSubmit={save}>
        <select value={service} onChange={(e) => setService(e.currentTarget.value)}>
          {services.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <input placeholder="per minute" inputMode="numeric" value={perMinute} onInput={(e) => setPerMinute(e.currentTarget.value)} />
        <input placeholder="per day" inputMode="numeric" value={perDay} onInput={(e) => setPerDay(e.currentTarget.value)} />
        <button type="submit">Set limit</button>
      </form>
      {error && <p class="error">{error}</p>}
    </section>
  );
}

interface AppSetting {
  key: string;
  label: string;
  description: string;
  on: boolean;
}

/** Switches the services offer per application (the reader's features arrangement). */
function Settings({ app }: { app: Application }) {
  const [settings, setSettings] = useState<AppSetting[]>([]);
  const [error, setError] = useState('');
  const load = () => consoleApi<{ settings: AppSetting[] }>('GET', `/apps/${app.app_code}/settings`).then((r) => setSettings(r.settings));
  useEffect(() => {
    void load();
  }, [app.app_code]);
  if (settings.length === 0) return null;
  return (
    <section class="card">
      <h3>Service settings</h3>
      {settings.map((s) => (
        <label key={s.key} class="inline switch">
          <input
            type="checkbox"
            checked={s.on}
            aria-label={s.label}
            onChange={async (e) => {
              setError('');
              try {
                await consoleApi('PUT', `/apps/${app.app_code}/settings`, { key: s.key, on: e.currentTarget.checked });
              } catch (err) {
                setError((err as Error).message);
              }
              await load();
            }}
          />
          <span>
            <strong>{s.label}</strong>
            <br />
            <span class="muted">{s.description}</span>
          </span>
        </label>
      ))}
      {error && <p class="error">{error}</p>}
    </section>
  );
}

function AppDetail({ app, services, reload, onDeleted }: { app: Application; services: string[]; reload: () => Promise<void>; onDeleted: () => void }) {
  const [name, setName] = useState(app.name);
  const [error, setError] = useState('');
  const [confirmDelete, setConfirmDelete] = useState<string[] | null>(null);
  useEffect(() => {
    setName(app.name);
    setConfirmDelete(null);
  }, [app.app_code]);
  async function rename(e: Event) {
    e.preventDefault();
    setError('');
    try {
      await consoleApi('PATCH', `/apps/${app.app_code}`, { name });
      await reload();
    } catch (err) {
      setError((err as Error).message);
    }
  }
  async function askDelete() {
    const r = await consoleApi<{ records: Record<string, number> }>('GET', `/apps/${app.app_code}/records`);
    setConfirmDelete(describeRecords(r.records));
  }
  async function doDelete() {
    await consoleApi('DELETE', `/apps/${app.app_code}`);
    setConfirmDelete(null);
    onDeleted();
    await reload();
  }
  return (
    <div class="detail">
      <section class="card">
        <form class="row" onSubmit={rename}>
          <input class="title-input" value={name} onInput={(e) => setName(e.currentTarget.value)} aria-label="Application name" />
          <button type="submit" disabled={name.trim() === app.name || !name.trim()}>
            Rename
          </button>
          <div class="spacer" />
          <button class="danger" onClick={(e) => (e.preventDefault(), void askDelete())}>
            Delete…
          </button>
        </form>
        <p class="muted">
          app_code <code>{app.app_code}</code> · created {app.created_time.slice(0, 10)}
          {app.revoked && ' · revoked'}
        </p>
        {error && <p class="error">{error}</p>}
        {confirmDelete && (
          <div class="notice danger" role="alertdialog">
            <p>
              <strong>Delete “{app.name}” for good?</strong> This deletes:
            </p>
            <ul>{confirmDelete.length === 0 ? <li>the application only (it has no records)</li> : confirmDelete.map((line) => <li key={line}>{line}</li>)}</ul>
            <p class="muted">Generated files (TTS audio, face crops) are not listed; they expire with the blob retention. This cannot be undone.</p>
            <div class="row">
              <button class="danger primary" onClick={doDelete}>
                Delete application and its records
              </button>
              <button onClick={() => setConfirmDelete(null)}>Cancel</button>
            </div>
          </div>
        )}
      </section>
      <Credentials app={app} />
      <Quotas app={app} services={services} />
      <Settings app={app} />
      <SettingsSections app={app} />
      <AllowedOrigins app={app} />
    </div>
  );
}

export function AppsPage({ apps, services, reload }: { apps: Application[]; services: string[]; reload: () => Promise<void> }) {
  const [selected, setSelected] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; api_key: string; token: string } | null>(null);
  const [error, setError] = useState('');
  const current = apps.find((a) => a.app_code === selected) ?? apps.find((a) => !a.revoked) ?? null;
  async function create(e: Event) {
    e.preventDefault();
    setError('');
    try {
      const r = await consoleApi<{ application: Application; api_key: string; token: string }>('POST', '/apps', { name });
      rememberKey(r.application.app_code, 'api_key', r.api_key);
      rememberKey(r.application.app_code, 'token', r.token);
      setCreated({ name: r.application.name, api_key: r.api_key, token: r.token });
      setName('');
      setSelected(r.application.app_code);
      await reload();
    } catch (err) {
      setError((err as Error).message);
    }
  }
  return (
    <>
      <header class="page-head">
        <h2>Applications</h2>
        <p class="muted">Every record belongs to one application; each has its API keys (recognition, face, speech, credit) and bearer tokens (/api/v3).</p>
      </header>
      <form class="card row" onSubmit={create}>
        <input placeholder="New application name" value={name} onInput={(e) => setName(e.currentTarget.value)} aria-label="New application name" />
        <button type="submit" class="primary" disabled={!name.trim()}>
          Create application
        </button>
      </form>
      {error && <p class="error">{error}</p>}
      {created && (
        <div class="notice">
          <p>
            <strong>“{created.name}” is ready.</strong> Copy its key and token now: they are shown only once.
          </p>
          <CopyField label="api_key" value={created.api_key} />
          <CopyField label="token" value={created.token} />
          <p class="muted">Try it:</p>
          <pre>{`curl -H 'api_key: ${created.api_key}' '${location.origin}/dmp/creditscoring/v1?phone=0912345678&dltype=1'`}</pre>
        </div>
      )}
      {apps.length === 0 ? (
        <p class="empty">No applications yet. Create one above to get an API key.</p>
      ) : (
        <div class="split">
          <ul class="list" aria-label="Applications">
            {apps.map((a) => (
              <li key={a.app_code}>
                <button class={current?.app_code === a.app_code ? 'active' : ''} onClick={() => setSelected(a.app_code)}>
                  <strong>{a.name}</strong>
                  <span class="muted">{a.revoked ? 'revoked' : `${a.api_keys} key${a.api_keys === 1 ? '' : 's'} · ${a.tokens} token${a.tokens === 1 ? '' : 's'}`}</span>
                </button>
              </li>
            ))}
          </ul>
          {current && <AppDetail app={current} services={services} reload={reload} onDeleted={() => (setSelected(null), setCreated(null))} />}
        </div>
      )}
    </>
  );
}
