import { useEffect, useRef, useState } from 'preact/hooks';
import { type Application } from './api';
import { nluApi, type NluApi } from './nlu-api';
import { ModelReportPanel } from './nlu-report';
import { useKey } from './playgrounds';

/** Samples the page lists, the oldest first; past it the heading says so (the export holds them all). */
const SHOWN_SAMPLES = 500;

interface Sample {
  code: string;
  content: string;
  intent_label: string;
  entities: string[];
}
interface Tag {
  entity_sample_code: string;
  value: string;
  start: number;
  end: number;
  label: string;
  entity_code: string;
}
interface Detail {
  code: string;
  content: string;
  intent: { intent_sample_code: string; intent_label: string };
  entities: Tag[];
}
interface Named {
  code: string;
  label: string;
}

/** Offsets in code points, as the API counts them (a UTF-16 offset would be off after any astral character). */
const codePoints = (text: string, utf16: number) => Array.from(text.slice(0, utf16)).length;

const TAG_COLOURS = ['#fde68a', '#bfdbfe', '#bbf7d0', '#fbcfe8', '#ddd6fe', '#fed7aa'];

/** The sample's text with its tagged spans marked; selecting text offers to tag it. */
function TaggedText({
  detail,
  entities,
  onTag,
  onUntag,
}: {
  detail: Detail;
  entities: Named[];
  onTag: (entity: Named, start: number, end: number, value: string) => void;
  onUntag: (tag: Tag) => void;
}) {
  const box = useRef<HTMLParagraphElement>(null);
  const [selection, setSelection] = useState<{ start: number; end: number; value: string } | null>(null);
  const chars = Array.from(detail.content);
  const tags = detail.entities.slice().sort((a, b) => a.start - b.start);
  const parts: preact.JSX.Element[] = [];
  let at = 0;
  tags.forEach((t, i) => {
    if (t.start < at) return;
    if (t.start > at) parts.push(<span key={`t${i}`}>{chars.slice(at, t.start).join('')}</span>);
    const colour =
      TAG_COLOURS[
        Math.max(
          0,
          entities.findIndex((e) => e.code === t.entity_code),
        ) % TAG_COLOURS.length
      ];
    parts.push(
      <mark key={t.entity_sample_code} style={{ background: colour }} title={`${t.label}: click to remove`} onClick={() => onUntag(t)}>
        {chars.slice(t.start, t.end).join('')}
        <sub>{t.label}</sub>
      </mark>,
    );
    at = t.end;
  });
  if (at < chars.length) parts.push(<span key="rest">{chars.slice(at).join('')}</span>);

  function onMouseUp() {
    const sel = getSelection();
    const el = box.current;
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed || !el || !el.contains(sel.anchorNode) || !el.contains(sel.focusNode)) return setSelection(null);
    const range = sel.getRangeAt(0);
    const before = document.createRange();
    before.selectNodeContents(el);
    before.setEnd(range.startContainer, range.startOffset);
    // Labels in <sub> are not part of the sample's text.
    const textBefore = stripLabels(before.cloneContents());
    const picked = stripLabels(range.cloneContents());
    const start = codePoints(textBefore, textBefore.length);
    const end = start + Array.from(picked).length;
    if (picked.trim()) setSelection({ start, end, value: picked });
  }
  return (
    <div>
      <p class="tagged" ref={box} onMouseUp={onMouseUp} data-testid="nlu-text">
        {parts}
      </p>
      {selection && (
        <div class="row">
          <span>
            Tag “<strong>{selection.value}</strong>” as
          </span>
          {entities.map((e) => (
            <button key={e.code} onClick={() => (onTag(e, selection.start, selection.end, selection.value), setSelection(null))}>
              {e.label}
            </button>
          ))}
          {entities.length === 0 && <span class="muted">create an entity first</span>}
        </div>
      )}
    </div>
  );
}

interface TrainStatus {
  status: number;
  trainable: boolean;
  progress: number;
  last_success_time: string;
  accuracy: number;
  precision: number;
  recall: number;
  f1: number;
  metrics: { intent?: { test_size: number }; entity?: { f1: number; test_spans: number } };
  model_code: string;
}
interface Predicted {
  intents?: { label: string; confidence: number }[];
  entities?: { start: number; end: number; value: string; real_value: string | number; entity: string }[];
}

const STATES = ['waiting', 'training', 'trained', 'failed'];

/** The text with the predicted entities marked (offsets in code points). */
function Highlighted({ text, entities }: { text: string; entities: NonNullable<Predicted['entities']> }) {
  const chars = Array.from(text);
  const parts: preact.JSX.Element[] = [];
  let at = 0;
  entities.forEach((e, i) => {
    if (e.start < at) return;
    if (e.start > at) parts.push(<span key={`t${i}`}>{chars.slice(at, e.start).join('')}</span>);
    parts.push(
      <mark key={`e${i}`} style={{ background: TAG_COLOURS[i % TAG_COLOURS.length] }} title={`${e.entity} = ${String(e.real_value)}`}>
        {chars.slice(e.start, e.end).join('')}
        <sub>{e.entity}</sub>
      </mark>,
    );
    at = e.end;
  });
  if (at < chars.length) parts.push(<span key="rest">{chars.slice(at).join('')}</span>);
  return (
    <p class="tagged" data-testid="nlu-prediction">
      {parts}
    </p>
  );
}

/** Train, the model's status and metrics, the threshold, and a box to try the model. */
function ModelPanel({ api, token }: { api: NluApi; token: string }) {
  const [status, setStatus] = useState<TrainStatus | null>(null);
  const [threshold, setThreshold] = useState('');
  const [text, setText] = useState('');
  const [tried, setTried] = useState<{ text: string; answer: Predicted } | null>(null);
  const [message, setMessage] = useState('');
  const guard = (work: () => Promise<unknown>) => () => void work().catch((e) => setMessage((e as Error).message));
  async function refresh() {
    const s = await api<TrainStatus>('GET', '/train/status');
    setStatus(s);
    return s;
  }
  useEffect(() => {
    setTried(null);
    setMessage('');
    guard(async () => {
      await refresh();
      setThreshold(String((await api<{ threshold: number }>('GET', '/settings')).threshold));
    })();
  }, [token]);
  // While a training waits or runs, look again every second.
  useEffect(() => {
    if (!status) return;
    if (status.status > 1) return setMessage((m) => (m === 'Training queued' ? '' : m));
    const timer = setTimeout(guard(refresh), 1000);
    return () => clearTimeout(timer);
  }, [status]);
  async function train() {
    setMessage('');
    const r = await api<{ message: string }>('POST', '/train');
    setMessage(r.message);
    await refresh();
  }
  async function saveThreshold(e: Event) {
    e.preventDefault();
    const r = await api<{ threshold: number }>('PUT', '/settings', { threshold: Number(threshold) });
    setMessage(`Threshold set to ${r.threshold}`);
  }
  async function tryIt(e: Event) {
    e.preventDefault();
    const r = await api<{ data: Predicted }>('POST', '/predict', { content: text });
    setTried({ text, answer: r.data });
  }
  const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
  return (
    <section class="card" data-testid="nlu-model">
      <header class="row">
        <h3>Model</h3>
        <div class="actions">
          <button class="primary" onClick={guard(train)} disabled={status?.status === 1}>
            Train
          </button>
        </div>
      </header>
      {status && (
        <p data-testid="nlu-status">
          Status: <strong>{STATES[status.status] ?? status.status}</strong>
          {status.status === 1 ? ` ${status.progress}%` : ''}
          {status.last_success_time ? ` · last model ${new Date(status.last_success_time).toLocaleString()}` : ' · no model yet'}
          {status.trainable ? ' · the data changed since' : ''}
          {status.last_success_time && (
            <span class="muted">
              {' '}
              {status.metrics.intent
                ? `· intents (${status.metrics.intent.test_size} held out): accuracy ${pct(status.accuracy)}, macro F1 ${pct(status.f1)}`
                : '· not measured: too few samples per intent to hold some out'}
              {status.metrics.entity ? ` · entities: F1 ${pct(status.metrics.entity.f1)} on ${status.metrics.entity.test_spans} spans` : ''}
            </span>
          )}
        </p>
      )}
      {status?.model_code && <ModelReportPanel api={api} modelCode={status.model_code} />}
      <form class="row" onSubmit={(e) => guard(() => saveThreshold(e))()}>
        <label>
          Threshold <input type="number" min="0" max="1" step="0.05" value={threshold} onInput={(e) => setThreshold(e.currentTarget.value)} aria-label="Threshold" />
        </label>
        <button type="submit">Save</button>
      </form>
      <form class="row" onSubmit={(e) => guard(() => tryIt(e))()}>
        <input class="grow" placeholder="Try it: type a sentence" value={text} onInput={(e) => setText(e.currentTarget.value)} aria-label="Try it" />
        <button type="submit" disabled={!text.trim()}>
          Predict
        </button>
      </form>
      {message && <p class="muted">{message}</p>}
      {tried && (
        <div>
          <Highlighted text={tried.text} entities={tried.answer.entities ?? []} />
          <ul data-testid="nlu-intents">
            {(tried.answer.intents ?? []).map((i) => (
              <li key={i.label}>
                {i.label} <span class="muted">{pct(i.confidence)}</span>
              </li>
            ))}
            {(tried.answer.intents ?? []).length === 0 && <li class="muted">no intent above the threshold</li>}
          </ul>
        </div>
      )}
    </section>
  );
}

function stripLabels(fragment: DocumentFragment): string {
  fragment.querySelectorAll('sub').forEach((s) => s.remove());
  return fragment.textContent ?? '';
}

export function NluPlayground({ apps }: { apps: Application[] }) {
  const { key: token, picker } = useKey(apps, 'token');
  const [samples, setSamples] = useState<Sample[]>([]);
  const [intents, setIntents] = useState<Named[]>([]);
  const [entities, setEntities] = useState<Named[]>([]);
  const [detail, setDetail] = useState<Detail | null>(null);
  const [content, setContent] = useState('');
  const [intent, setIntent] = useState('');
  const [newLabel, setNewLabel] = useState('');
  const [message, setMessage] = useState('');

  const api = nluApi(token);
  const guard = (work: () => Promise<unknown>) => () => void work().catch((e) => setMessage((e as Error).message));
  async function load() {
    setMessage('');
    const [s, i, e] = await Promise.all([api<Sample[]>('GET', `/sample?limit=${SHOWN_SAMPLES}`), api<Named[]>('GET', '/intent'), api<Named[]>('GET', '/entity')]);
    setSamples(s);
    setIntents(i);
    setEntities(e);
  }
  useEffect(() => {
    // Another application (or token): nothing of the last one stays on screen.
    setDetail(null);
    setSamples([]);
    if (token) guard(load)();
  }, [token]);
  async function open(sampleCode: string) {
    setDetail(await api<Detail>('GET', `/sample/${sampleCode}`));
  }
  async function add(e: Event) {
    e.preventDefault();
    const created = await api<{ code: string }>('POST', '/sample', { content });
    if (intent) await api('POST', '/intent-sample', { intent_code: intent, sample_code: created.code });
    setContent('');
    await load();
    await open(created.code);
  }
  async function exportSet() {
    const set = await api('GET', '/export');
    const url = URL.createObjectURL(new Blob([JSON.stringify(set, null, 2)], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'training-set.json';
    a.click();
    URL.revokeObjectURL(url);
  }
  async function importSet(file: File) {
    const r = await api('POST', '/import?mode=merge', JSON.parse(await file.text()));
    setMessage(`Imported: ${r.samples_created} samples, ${r.intents_created} intents, ${r.entities_created} entities (${r.samples_skipped} already there).`);
    await load();
  }
  return (
    <>
      <header class="page-head">
        <h2>NLU training data</h2>
        <p class="muted">
          The <code>/api/v3</code> training data of an application, with its bearer token: browse and add samples, tag entity spans by selecting text, import and export;
          train the model and try it.
        </p>
      </header>
      {picker}
      {message && <p class="muted">{message}</p>}
      {token && <ModelPanel api={api} token={token} />}
      {token && (
        <div class="two">
          <section class="card">
            <header class="row">
              <h3>Samples ({samples.length < SHOWN_SAMPLES ? samples.length : `the first ${SHOWN_SAMPLES}`})</h3>
              <div class="actions">
                <button onClick={guard(exportSet)}>Export</button>
                <label class="button">
                  Import
                  <input
                    type="file"
                    accept="application/json"
                    hidden
                    onChange={(e) => e.currentTarget.files?.[0] && guard(() => importSet(e.currentTarget.files![0]))()}
                  />
                </label>
              </div>
            </header>
            <form class="row" onSubmit={(e) => guard(() => add(e))()}>
              <input class="grow" placeholder="New sample text" value={content} onInput={(e) => setContent(e.currentTarget.value)} aria-label="New sample" />
              <select value={intent} onChange={(e) => setIntent(e.currentTarget.value)} aria-label="Intent">
                <option value="">no intent</option>
                {intents.map((i) => (
                  <option key={i.code} value={i.code}>
                    {i.label}
                  </option>
                ))}
              </select>
              <button type="submit" class="primary" disabled={!content.trim()}>
                Add
              </button>
            </form>
            <ul class="samples">
              {samples.map((s) => (
                <li key={s.code}>
                  <button class={detail?.code === s.code ? 'active' : ''} onClick={guard(() => open(s.code))}>
                    <span>{s.content}</span>
                    <span class="muted">
                      {s.intent_label || 'no intent'}
                      {s.entities.length ? ` · ${s.entities.join(', ')}` : ''}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
          <section class="card">
            {detail ? (
              <>
                <h3>{detail.intent.intent_label ? `Intent: ${detail.intent.intent_label}` : 'No intent'}</h3>
                <p class="muted">Select words to tag them; click a tag to remove it.</p>
                <TaggedText
                  detail={detail}
                  entities={entities}
                  onTag={(entity, start, end, value) =>
                    guard(
                      async () => (
                        await api('POST', '/entity-sample', { entity_code: entity.code, sample_code: detail.code, start, end, value }),
                        await open(detail.code),
                        await load()
                      ),
                    )()
                  }
                  onUntag={(tag) => guard(async () => (await api('DELETE', `/entity-sample/${tag.entity_sample_code}`), await open(detail.code), await load()))()}
                />
                <div class="row">
                  <button class="danger" onClick={guard(async () => (await api('DELETE', `/sample/${detail.code}`), setDetail(null), await load()))}>
                    Delete sample
                  </button>
                </div>
              </>
            ) : (
              <p class="muted">Choose a sample to see and tag it.</p>
            )}
            <hr />
            <form
              class="row"
              onSubmit={(e) => (
                e.preventDefault(),
                guard(async () => (await api('POST', '/intent', { label: newLabel, description: '' }), setNewLabel(''), await load()))()
              )}
            >
              <input placeholder="label (a-z, 0-9, _)" value={newLabel} onInput={(e) => setNewLabel(e.currentTarget.value)} aria-label="New label" />
              <button type="submit" disabled={!newLabel}>
                New intent
              </button>
              <button
                type="button"
                disabled={!newLabel}
                onClick={guard(async () => (await api('POST', '/entity', { label: newLabel, description: '', type: 1 }), setNewLabel(''), await load()))}
              >
                New entity
              </button>
            </form>
            <p class="muted">
              Intents: {intents.map((i) => i.label).join(', ') || 'none'} · Entities: {entities.map((e) => e.label).join(', ') || 'none'}
            </p>
          </section>
        </div>
      )}
    </>
  );
}
