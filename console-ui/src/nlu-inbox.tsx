import { useEffect, useState } from 'preact/hooks';
import type { Application } from './api';
import { nluApi } from './nlu-api';
import { useKey } from './playgrounds';

interface Item {
  history_id: number;
  content: string;
  reasons: string[];
  top_intent: string;
  top_confidence: number;
  second_intent: string;
  comment: string;
  created_time: string;
}
interface Group {
  group_id: number;
  size: number;
  suggested_intent: string;
  items: Item[];
}
interface Page {
  total_items: number;
  grouped_items: number;
  total_groups: number;
  similarity: number;
  groups: Group[];
}
interface Day {
  day: string;
  added: number;
  reported: number;
  labelled: number;
  dismissed: number;
  out_of_scope: number;
}
interface Settings {
  history_retention_days: number;
  mask_history: boolean;
}

const REASONS: Record<string, string> = { low_confidence: 'under the threshold', close_second: 'close second', no_intent: 'no intent', reported: 'reported' };
const pct = (n: number) => `${(n * 100).toFixed(0)}%`;

/** One group of similar texts: label them all as an intent, dismiss them, or mark them out of scope. */
function GroupCard({ group, intents, act }: { group: Group; intents: string[]; act: (path: string, body: unknown) => Promise<void> }) {
  const [intent, setIntent] = useState(group.suggested_intent);
  const ids = group.items.map((i) => i.history_id);
  return (
    <section class="card" data-testid="inbox-group">
      <header class="row">
        <h3>
          {group.size} similar {group.size === 1 ? 'text' : 'texts'}
        </h3>
        <form
          class="row actions"
          onSubmit={(e) => {
            e.preventDefault();
            void act('/inbox/label', { intent, items: ids.map((history_id) => ({ history_id })) });
          }}
        >
          <input list="inbox-intents" value={intent} onInput={(e) => setIntent(e.currentTarget.value.trim())} aria-label="Intent for the group" placeholder="intent" />
          <button class="primary" type="submit" disabled={!intent}>
            Label group
          </button>
          <button type="button" onClick={() => void act('/inbox/dismiss', { history_ids: ids })}>
            Dismiss
          </button>
          <button type="button" onClick={() => void act('/inbox/out-of-scope', { history_ids: ids })}>
            Out of scope
          </button>
        </form>
      </header>
      <ul>
        {group.items.map((i) => (
          <li key={i.history_id}>
            <span data-testid="inbox-text">{i.content}</span>{' '}
            <span class="muted">
              {i.top_intent ? `${i.top_intent} ${pct(i.top_confidence)}` : 'no intent'}
              {i.second_intent ? `, then ${i.second_intent}` : ''} · {i.reasons.map((r) => REASONS[r] ?? r).join(', ')}
              {i.comment ? ` · “${i.comment}”` : ''}
            </span>
          </li>
        ))}
      </ul>
      <datalist id="inbox-intents">
        {intents.map((l) => (
          <option key={l} value={l} />
        ))}
      </datalist>
    </section>
  );
}

/** Saved predictions the model was unsure about or end users reported, grouped, to turn into training samples. */
export function NluInboxPage({ apps }: { apps: Application[] }) {
  const { key: token, picker } = useKey(apps, 'token');
  const [page, setPage] = useState<Page | null>(null);
  const [days, setDays] = useState<Day[]>([]);
  const [intents, setIntents] = useState<string[]>([]);
  const [settings, setSettings] = useState<Settings | null>(null);
  const [message, setMessage] = useState('');
  const api = nluApi(token);
  const guard = (work: () => Promise<unknown>) => work().catch((e) => setMessage((e as Error).message));
  async function load() {
    const [p, s, i, h] = await Promise.all([
      api<Page>('GET', '/inbox?limit=100'),
      api<{ days: Day[] }>('GET', '/inbox/stats?days=14'),
      api<{ label: string }[]>('GET', '/intent'),
      api<Settings>('GET', '/inbox/settings'),
    ]);
    setPage(p);
    setDays(s.days);
    setIntents(i.map((x) => x.label));
    setSettings(h);
  }
  useEffect(() => {
    setPage(null);
    setMessage('');
    if (token) void guard(load);
  }, [token]);
  async function act(path: string, body: unknown) {
    await guard(async () => {
      const r = await api<Record<string, number>>('POST', path, body);
      setMessage(
        path === '/inbox/label' ? `${r.samples_created} samples added (${r.samples_skipped} already there): train the model to learn them` : `${r.resolved} resolved`,
      );
      await load();
    });
  }
  async function saveSettings(change: Partial<Settings>) {
    await guard(async () => setSettings(await api<Settings>('PUT', '/inbox/settings', change)));
  }
  return (
    <div>
      <header class="page-head">
        <h2>NLU inbox</h2>
        <p class="muted">
          Saved predictions (<code>save_history</code>) that were under the threshold, had a close second intent or no intent, or that an end user reported, grouped by
          similarity: label a group as an intent to add its texts as training samples, then train.
        </p>
      </header>
      {picker}
      {message && (
        <p class="muted" data-testid="inbox-message">
          {message}
        </p>
      )}
      {page && (
        <p data-testid="inbox-summary">
          {page.total_items} open in {page.total_groups} groups
          <span class="muted"> (texts share a group at cosine {page.similarity} of the model's features)</span>
        </p>
      )}
      {page?.groups.map((g) => (
        <GroupCard key={g.group_id} group={g} intents={intents} act={act} />
      ))}
      {page && page.groups.length === 0 && <p class="muted">Nothing to look at.</p>}
      {days.length > 0 && (
        <section class="card">
          <h3>Last 14 days</h3>
          <table data-testid="inbox-days">
            <thead>
              <tr>
                <th>Day</th>
                <th>Came in</th>
                <th>Reported</th>
                <th>Labelled</th>
                <th>Dismissed</th>
                <th>Out of scope</th>
              </tr>
            </thead>
            <tbody>
              {days
                .filter((d) => d.added + d.labelled + d.dismissed + d.out_of_scope > 0)
                .map((d) => (
                  <tr key={d.day}>
                    <td>{d.day}</td>
                    <td>{d.added}</td>
                    <td>{d.reported}</td>
                    <td>{d.labelled}</td>
                    <td>{d.dismissed}</td>
                    <td>{d.out_of_scope}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </section>
      )}
      {settings && (
        <section class="card row">
          <label>
            Keep saved predictions (days, 0: until deleted){' '}
            <input
              type="number"
              min="0"
              max="3650"
              value={settings.history_retention_days}
              aria-label="Retention days"
              onChange={(e) => void saveSettings({ history_retention_days: Number(e.currentTarget.value) })}
            />
          </label>
          <label class="inline">
            <input
              type="checkbox"
              checked={settings.mask_history}
              aria-label="Mask personal data"
              onChange={(e) => void saveSettings({ mask_history: e.currentTarget.checked })}
            />{' '}
            Mask numbers, phone numbers, e-mail addresses and ids before saving
          </label>
        </section>
      )}
    </div>
  );
}
