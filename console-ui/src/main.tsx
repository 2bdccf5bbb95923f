import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { consoleApi, setCsrf, type Application } from './api';
import { AppsPage } from './apps';
import { UsagePage } from './usage';
import { AsrPlayground, CreditPlayground, FaceMatchPlayground, FaceSearchPlayground, IdCardPlayground, TtsPlayground } from './playgrounds';
import { NluPlayground } from './nlu';
import { NluInboxPage } from './nlu-inbox';
import { EkycDeskPage } from './ekyc-desk';
import './style.css';

interface Status {
  enabled: boolean;
  signed_in: boolean;
  csrf?: string;
  how_to_enable?: string;
  services: string[];
}

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/apps');
  useEffect(() => {
    const on = () => setHash(location.hash || '#/apps');
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function SignIn({ onDone }: { onDone: (csrf: string) => void }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const r = await consoleApi<{ csrf: string }>('POST', '/login', { password });
      onDone(r.csrf);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }
  return (
    <main class="signin">
      <form class="card" onSubmit={submit}>
        <h1>
          <span class="logo">◆</span> Saola console
        </h1>
        <p class="muted">Sign in with the operator password (SAOLA_ADMIN_PASSWORD).</p>
        <label>
          Password
          <input type="password" name="password" autoFocus autoComplete="current-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy || !password}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

function Disabled({ how }: { how: string }) {
  return (
    <main class="signin">
      <div class="card">
        <h1>
          <span class="logo">◆</span> Saola console is off
        </h1>
        <p>{how}.</p>
        <pre>SAOLA_ADMIN_PASSWORD='a long passphrase' npm start</pre>
        <p class="muted">
          Until then the console's API refuses every call. Applications can still be managed with <code>npx saola app ...</code>.
        </p>
      </div>
    </main>
  );
}

const NAV = [
  ['#/apps', 'Applications'],
  ['#/usage', 'Usage'],
  ['#/ekyc', 'eKYC review'],
  ['#/play/idcard', 'ID card'],
  ['#/play/tts', 'Text to speech'],
  ['#/play/face-match', 'Face match'],
  ['#/play/face-search', 'Face search'],
  ['#/play/asr', 'Speech to text'],
  ['#/play/credit', 'Credit scoring'],
  ['#/play/nlu', 'NLU training data'],
  ['#/play/nlu-inbox', 'NLU inbox'],
] as const;

function Shell({ services, onSignOut }: { services: string[]; onSignOut: () => void }) {
  const hash = useHash();
  const [apps, setApps] = useState<Application[]>([]);
  const reloadApps = () => consoleApi<{ applications: Application[] }>('GET', '/apps').then((r) => setApps(r.applications));
  useEffect(() => {
    void reloadApps();
  }, []);
  const live = apps.filter((a) => !a.revoked);
  let page;
  if (hash.startsWith('#/usage')) page = <UsagePage apps={live} services={services} />;
  else if (hash.startsWith('#/ekyc')) page = <EkycDeskPage apps={live} hash={hash} />;
  else if (hash.startsWith('#/play/idcard')) page = <IdCardPlayground apps={live} />;
  else if (hash.startsWith('#/play/tts')) page = <TtsPlayground apps={live} />;
  else if (hash.startsWith('#/play/credit')) page = <CreditPlayground apps={live} />;
  else if (hash.startsWith('#/play/face-match')) page = <FaceMatchPlayground apps={live} />;
  else if (hash.startsWith('#/play/face-search')) page = <FaceSearchPlayground apps={live} />;
  else if (hash.startsWith('#/play/asr')) page = <AsrPlayground apps={live} />;
  else if (hash.startsWith('#/play/nlu-inbox')) page = <NluInboxPage apps={live} />;
  else if (hash.startsWith('#/play/nlu')) page = <NluPlayground apps={live} />;
  else page = <AppsPage apps={apps} services={services} reload={reloadApps} />;
  return (
    <div class="shell">
      <nav class="side">
        <div class="brand">
          <span class="logo">◆</span> Saola
        </div>
        <div class="group">Manage</div>
        {NAV.slice(0, 3).map(([href, label]) => (
          <a key={href} href={href} class={hash.startsWith(href) ? 'active' : ''}>
            {label}
          </a>
        ))}
        <div class="group">Playgrounds</div>
        {NAV.slice(3).map(([href, label]) => (
          <a key={href} href={href} class={hash.startsWith(href) ? 'active' : ''}>
            {label}
          </a>
        ))}
        <div class="spacer" />
        <a href="/docs" target="_blank" rel="noopener">
          API reference ↗
        </a>
        <button class="link" onClick={onSignOut}>
          Sign out
        </button>
      </nav>
      <main class="content">{page}</main>
    </div>
  );
}

function App() {
  const [status, setStatus] = useState<Status | null>(null);
  const [error, setError] = useState('');
  const load = () =>
    consoleApi<Status>('GET', '/status').then(
      (s) => {
        if (s.csrf) setCsrf(s.csrf);
        setStatus(s);
      },
      (err) => setError((err as Error).message),
    );
  useEffect(() => {
    void load();
    const out = () => setStatus((s) => (s ? { ...s, signed_in: false } : s));
    window.addEventListener('saola:signed-out', out);
    return () => window.removeEventListener('saola:signed-out', out);
  }, []);
  if (error)
    return (
      <main class="signin">
        <p class="error">The server did not answer: {error}</p>
      </main>
    );
  if (!status)
    return (
      <main class="signin">
        <p class="muted">Loading…</p>
      </main>
    );
  if (!status.enabled) return <Disabled how={status.how_to_enable ?? 'Set SAOLA_ADMIN_PASSWORD'} />;
  if (!status.signed_in)
    return (
      <SignIn
        onDone={(csrf) => {
          setCsrf(csrf);
          setStatus({ ...status, signed_in: true });
        }}
      />
    );
  return (
    <Shell
      services={status.services}
      onSignOut={async () => {
        await consoleApi('POST', '/logout').catch(() => undefined);
        setStatus({ ...status, signed_in: false });
      }}
    />
  );
}

render(<App />, document.getElementById('root')!);
