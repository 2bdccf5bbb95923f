import { useEffect, useRef, useState } from 'preact/hooks';
import { consoleApi, type Application } from './api';

interface SectionInfo {
  key: string;
  label: string;
  description: string;
  schema: { properties?: Record<string, { description?: string }> };
  defaults: Record<string, unknown>;
  values: Record<string, unknown>;
}

const show = (v: unknown) => (v === undefined ? '' : JSON.stringify(v));

/**
 * The settings documents the services offer per application (the eKYC flow's): each setting with its meaning,
 * the deployment's value and this application's override, edited as one JSON document (the server checks it
 * against the section's schema and names what is wrong).
 */
function Section({ app, section, reload }: { app: Application; section: SectionInfo; reload: () => Promise<void> }) {
  const [text, setText] = useState(JSON.stringify(section.values, null, 2));
  const [error, setError] = useState('');
  const [saved, setSaved] = useState(false);
  // A new document from the server replaces the text; not on the first render, which already shows it (effects
  // run after the page is painted: a reset there would wipe what was typed in between).
  const shown = useRef(section);
  useEffect(() => {
    if (shown.current === section) return;
    shown.current = section;
    setText(JSON.stringify(section.values, null, 2));
  }, [section]);
  const save = async () => {
    setError('');
    setSaved(false);
    let values: unknown;
    try {
      values = JSON.parse(text || '{}');
    } catch {
      setError('Not JSON');
      return;
    }
    try {
      await consoleApi('PUT', `/apps/${app.app_code}/sections/${section.key}`, { values });
      setSaved(true);
      await reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <section class="card" data-testid={`section-${section.key}`}>
      <h3>{section.label}</h3>
      <p class="muted">{section.description}</p>
      <table>
        <thead>
          <tr>
            <th>Setting</th>
            <th>Meaning</th>
            <th>Deployment</th>
            <th>This application</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(section.schema.properties ?? {}).map(([name, prop]) => (
            <tr key={name}>
              <td>
                <code>{name}</code>
              </td>
              <td class="muted">{prop.description ?? ''}</td>
              <td>{show(section.defaults[name])}</td>
              <td>{show(section.values[name])}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <label>
        Overrides (JSON; <code>{'{}'}</code>: the deployment's values)
        <textarea rows={6} value={text} aria-label={`${section.label} overrides`} onInput={(e) => setText(e.currentTarget.value)} />
      </label>
      <div class="row">
        <button class="primary" onClick={save}>
          Save
        </button>
        {saved && <span class="muted">Saved</span>}
      </div>
      {error && <p class="error">{error}</p>}
    </section>
  );
}

export function SettingsSections({ app }: { app: Application }) {
  const [sections, setSections] = useState<SectionInfo[]>([]);
  const load = () => consoleApi<{ sections: SectionInfo[] }>('GET', `/apps/${app.app_code}/sections`).then((r) => setSections(r.sections));
  useEffect(() => {
    void load();
  }, [app.app_code]);
  return (
    <>
      {sections.map((s) => (
        <Section key={s.key} app={app} section={s} reload={load} />
      ))}
    </>
  );
}

/** The origins browsers may call the API from with this application's key (CORS; none: closed). */
export function AllowedOrigins({ app }: { app: Application }) {
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const load = () => consoleApi<{ allowed_origins: string[] }>('GET', `/apps/${app.app_code}/origins`).then((r) => setText(r.allowed_origins.join('\n')));
  useEffect(() => {
    void load();
  }, [app.app_code]);
  const save = async () => {
    setError('');
    const origins = text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    try {
      await consoleApi('PUT', `/apps/${app.app_code}/origins`, { allowed_origins: origins });
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <section class="card">
      <h3>Browser origins (CORS)</h3>
      <p class="muted">One origin a line, such as https://shop.example; browsers on other origins cannot read this application's answers.</p>
      <textarea rows={3} value={text} aria-label="Allowed origins" onInput={(e) => setText(e.currentTarget.value)} />
      <div class="row">
        <button class="primary" onClick={save}>
          Save origins
        </button>
      </div>
      {error && <p class="error">{error}</p>}
    </section>
  );
}
