import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { consoleApi, rememberKey, rememberedKey, safeJson, type Application } from './api';
import { AppPicker } from './usage';

const PICKED_APP = 'saola.console.app';

/**
 * The application and credential a playground calls the public API with: an
 * API key (or, for /api/v3, a bearer token) made in this tab, or a pasted one.
 */
export function useKey(apps: Application[], kind: 'api_key' | 'token' = 'api_key') {
  // The application picked on one playground stays picked on the next (for this tab).
  const [app, setApp] = useState(() => sessionStorage.getItem(PICKED_APP) ?? '');
  const pick = (code: string) => {
    sessionStorage.setItem(PICKED_APP, code);
    setApp(code);
  };
  const code = (apps.some((a) => a.app_code === app) ? app : '') || apps[0]?.app_code || '';
  const [key, setKey] = useState(() => rememberedKey(code, kind));
  const [error, setError] = useState('');
  // Picking another application shows its remembered credential (or none); a credential pasted before the list of
  // applications arrived (the code going from none to the picked one) stays. The first render already shows the
  // remembered one: effects run after the page is painted, so resetting there would wipe a credential typed (or
  // pasted by a script) in between.
  const shown = useRef(code);
  useEffect(() => {
    if (shown.current === code) return;
    const arrived = shown.current === '';
    shown.current = code;
    setKey((typed) => rememberedKey(code, kind) || (arrived ? typed : ''));
  }, [code]);
  async function issue() {
    setError('');
    try {
      const r = await consoleApi<{ secret: string }>('POST', `/apps/${code}/credentials`, { kind });
      rememberKey(code, kind, r.secret);
      setKey(r.secret);
    } catch (err) {
      setError((err as Error).message);
    }
  }
  const what = kind === 'api_key' ? 'an API key' : 'a bearer token';
  const picker = (
    <div class="card row keybar">
      <AppPicker apps={apps} value={code} onChange={pick} />
      <label class="inline grow">
        {kind}
        <input value={key} onInput={(e) => setKey(e.currentTarget.value.trim())} placeholder={`paste ${what} of this application`} aria-label={kind} />
      </label>
      {!key && code && <button onClick={issue}>Issue {kind === 'api_key' ? 'a key' : 'a token'} for the playground</button>}
      {error && <span class="error">{error}</span>}
    </div>
  );
  return { code, key, picker };
}

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string); // readAsDataURL's result is a string
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

interface Point {
  x: number;
  y: number;
}

const FIELD_LABELS: Record<string, string> = {
  id: 'Number',
  name: 'Full name',
  dob: 'Date of birth',
  sex: 'Sex',
  nationality: 'Nationality',
  home: 'Place of origin',
  address: 'Place of residence',
  doe: 'Date of expiry',
  issue_date: 'Date of issue',
  issue_loc: 'Place of issue',
  features: 'Distinguishing features',
  type: 'Card type',
  type_new: 'Card kind',
  overall_score: 'Overall confidence',
};

export function IdCardPlayground({ apps }: { apps: Application[] }) {
  const { key, picker } = useKey(apps);
  const [image, setImage] = useState<{ url: string; file: File } | null>(null);
  const [size, setSize] = useState<{ w: number; h: number } | null>(null);
  const [corners, setCorners] = useState<Point[] | null>(null);
  const [outlineNote, setOutlineNote] = useState('');
  const [answer, setAnswer] = useState<any>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);

  async function run() {
    if (!image || !key) return;
    setBusy(true);
    setAnswer(null);
    setStatus('Reading…');
    const started = performance.now();
    try {
      const form = new FormData();
      form.append('image', image.file);
      const [res, outline] = await Promise.all([
        fetch('/vision/idr/vnm', { method: 'POST', headers: { api_key: key }, body: form }),
        readAsDataUrl(image.file).then((data) => consoleApi<{ found: boolean; corners?: Point[] }>('POST', '/playground/card-outline', { image_base64: data })),
      ]);
      const body = safeJson(await res.text());
      setAnswer(body);
      setStatus(`HTTP ${res.status} in ${Math.round(performance.now() - started)} ms`);
      setCorners(outline.found ? (outline.corners ?? null) : null);
      setOutlineNote(outline.found ? '' : 'No card outline found (a tight crop has none to find).');
    } catch (err) {
      setStatus((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  const item = answer?.data?.[0] as Record<string, unknown> | undefined;
  const fields = item ? Object.keys(item).filter((k) => !k.endsWith('_prob') && k !== 'address_entities') : [];
  return (
    <>
      <header class="page-head">
        <h2>ID card playground</h2>
        <p class="muted">
          Sends the photo to <code>POST /vision/idr/vnm</code> with the key below, exactly as a client would, and draws the card outline the reader finds.
        </p>
      </header>
      {picker}
      <div class="card row">
        <input
          type="file"
          accept="image/*"
          aria-label="ID card photo"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (!file) return;
            setImage({ url: URL.createObjectURL(file), file });
            setAnswer(null);
            setCorners(null);
            setStatus('');
          }}
        />
        <button class="primary" onClick={run} disabled={!image || !key || busy}>
          {busy ? 'Reading…' : 'Read card'}
        </button>
        <span class="muted" data-testid="idcard-status">
          {status}
        </span>
      </div>
      <div class="two">
        <section class="card">
          {image ? (
            <div class="photo">
              <img src={image.url} alt="ID card" onLoad={(e) => setSize({ w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })} />
              {size && corners && (
                <svg viewBox={`0 0 ${size.w} ${size.h}`} preserveAspectRatio="none" data-testid="card-outline">
                  <polygon points={corners.map((p) => `${p.x},${p.y}`).join(' ')} class="outline" style={{ strokeWidth: Math.max(3, size.w / 200) }} />
                </svg>
              )}
            </div>
          ) : (
            <p class="empty">Choose a photo of a Vietnamese ID card (front or back).</p>
          )}
          {outlineNote && <p class="muted">{outlineNote}</p>}
        </section>
        <section class="card">
          <h3>Fields</h3>
          {!answer && <p class="muted">The fields and their confidence appear here.</p>}
          {answer && answer.errorCode !== 0 && (
            <p class="error" data-testid="idcard-error">
              errorCode {String(answer.errorCode)}: {String(answer.errorMessage ?? answer.message ?? '')}
            </p>
          )}
          {item && (
            <table data-testid="idcard-fields">
              <tbody>
                {fields.map((f) => {
                  const prob = item[`${f}_prob`];
                  return (
                    <tr key={f}>
                      <th>{FIELD_LABELS[f] ?? f}</th>
                      <td>{String(item[f])}</td>
                      <td class="num muted">{typeof prob === 'string' || typeof prob === 'number' ? String(prob) : ''}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          {answer && (
            <details>
              <summary>Raw answer</summary>
              <pre>{JSON.stringify(answer, null, 2)}</pre>
            </details>
          )}
        </section>
      </div>
    </>
  );
}

const VOICES = [
  ['banmai', 'Ban Mai (female, northern)'],
  ['thuminh', 'Thu Minh (female, northern)'],
  ['leminh', 'Lê Minh (male, northern)'],
  ['lannhi', 'Lan Nhi (female, southern)'],
  ['linhsan', 'Linh San (female, southern)'],
  ['myan', 'Mỹ An (female, central)'],
  ['giahuy', 'Gia Huy (male, central)'],
  ['ngoclam', 'Ngọc Lam (female, central)'],
  ['minhquang', 'Minh Quang (male, southern)'],
];

export function TtsPlayground({ apps }: { apps: Application[] }) {
  const { key, picker } = useKey(apps);
  const [text, setText] = useState('Xin chào, đây là Saola. Hôm nay là ngày 24 tháng 11 năm 2026.');
  const [voice, setVoice] = useState('banmai');
  const [speed, setSpeed] = useState(0);
  const [job, setJob] = useState<{ status: string; progress: number; message: string } | null>(null);
  const [audio, setAudio] = useState('');
  const [error, setError] = useState('');
  const stop = useRef(false);
  useEffect(() => () => void (stop.current = true), []);
  // Which engine speaks each voice (eSpeak NG, or an installed neural model), as /readyz reports it.
  const [engines, setEngines] = useState<Record<string, string>>({});
  useEffect(() => {
    fetch('/readyz')
      .then((r) => r.json())
      .then((b: { checks?: { tts?: { voices?: Record<string, string> } } }) => setEngines(b.checks?.tts?.voices ?? {}))
      .catch(() => undefined);
  }, []);

  async function synthesize() {
    setError('');
    setAudio('');
    setJob({ status: 'sending', progress: 0, message: '' });
    const res = await fetch('/hmi/tts/v5', {
      method: 'POST',
      headers: { api_key: key, voice, speed: String(speed), 'content-type': 'text/plain; charset=utf-8' },
      body: text,
    });
    const body = safeJson(await res.text()) as { error?: number; async?: string; request_id?: string; message?: string };
    if (!res.ok || body.error !== 0 || !body.request_id) {
      setJob(null);
      setError(`HTTP ${res.status}: ${body.message ?? JSON.stringify(body)}`);
      return;
    }
    for (let i = 0; i < 600 && !stop.current; i++) {
      const s = await fetch(`/hmi/tts/v5/status/${body.request_id}`, { headers: { api_key: key } });
      const st = safeJson(await s.text()) as { status: string; progress: number; message: string; async: string };
      setJob({ status: st.status, progress: st.progress ?? 0, message: st.message ?? '' });
      if (st.status === 'done') {
        setAudio(st.async || body.async || '');
        return;
      }
      if (st.status === 'failed') {
        setError(st.message || 'Synthesis failed');
        return;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  return (
    <>
      <header class="page-head">
        <h2>Text to speech playground</h2>
        <p class="muted">
          Posts the text to <code>POST /hmi/tts/v5</code>, follows the job on <code>/status</code>, then plays the file from the async link.
        </p>
      </header>
      {picker}
      <section class="card">
        <textarea rows={5} value={text} onInput={(e) => setText(e.currentTarget.value)} aria-label="Text" maxLength={5000} />
        <div class="row">
          <label class="inline">
            Voice
            <select value={voice} onChange={(e) => setVoice(e.currentTarget.value)} aria-label="Voice">
              {VOICES.map(([v, label]) => (
                <option key={v} value={v}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          {engines[voice] && (
            <span class="muted" data-testid="tts-engine">
              {engines[voice]}
            </span>
          )}
          <label class="inline">
            Speed {speed > 0 ? `+${speed}` : speed}
            <input type="range" min={-3} max={3} step={1} value={speed} onInput={(e) => setSpeed(Number(e.currentTarget.value))} aria-label="Speed" />
          </label>
          <span class="muted">{text.length} / 5000 characters</span>
          <div class="spacer" />
          <button
            class="primary"
            onClick={() => void synthesize().catch((err) => setError((err as Error).message))}
            disabled={!key || text.trim().length < 3 || (job !== null && !audio && !error && job.status !== 'failed')}
          >
            Synthesize
          </button>
        </div>
        {job && (
          <div class="progress" data-testid="tts-progress">
            <div class="bar">
              <i style={{ width: `${audio ? 100 : Math.max(5, job.progress)}%` }} />
            </div>
            <span class="muted">
              {job.status}
              {job.progress ? ` · ${job.progress}%` : ''}
            </span>
          </div>
        )}
        {error && <p class="error">{error}</p>}
        {audio && (
          <div class="row">
            <audio controls src={audio} data-testid="tts-audio" />
            <a href={audio} download>
              Download
            </a>
          </div>
        )}
      </section>
    </>
  );
}

export function CreditPlayground({ apps }: { apps: Application[] }) {
  const { key, picker } = useKey(apps);
  const [phone, setPhone] = useState('0912345678');
  const [dltype, setDltype] = useState('1');
  const [answer, setAnswer] = useState<any>(null);
  const [status, setStatus] = useState('');
  async function score(e: Event) {
    e.preventDefault();
    const res = await fetch(`/dmp/creditscoring/v1?phone=${encodeURIComponent(phone)}&dltype=${dltype}`, { headers: { api_key: key } });
    setStatus(`HTTP ${res.status}`);
    setAnswer(safeJson(await res.text()));
  }
  const reasons = answer?.reasons ? (Object.entries(answer.reasons) as [string, { feature: string; bin: string; direction: string; effect: number }[]][]) : [];
  return (
    <>
      <header class="page-head">
        <h2>Credit scoring playground</h2>
        <p class="muted">
          <code>GET /dmp/creditscoring/v1</code>: a phone number in, a probability of repaying and its reasons out (-1 when a source knows nothing).
        </p>
      </header>
      {picker}
      <form class="card row" onSubmit={score}>
        <input value={phone} onInput={(e) => setPhone(e.currentTarget.value)} aria-label="Phone" />
        <select value={dltype} onChange={(e) => setDltype(e.currentTarget.value)} aria-label="Loan type">
          <option value="1">1 consumer loan</option>
          <option value="2">2 cash loan</option>
        </select>
        <button class="primary" type="submit" disabled={!key}>
          Score
        </button>
        <span class="muted">{status}</span>
      </form>
      {answer && (
        <section class="card">
          {typeof answer.score === 'number' ? (
            <div class="stats">
              <div class="stat">
                <span class="muted">Score</span>
                <strong>{answer.score === -1 ? 'no data' : answer.score.toFixed(3)}</strong>
              </div>
              <div class="stat">
                <span class="muted">alpha</span>
                <strong>{answer.alpha_score}</strong>
              </div>
            </div>
          ) : (
            <p class="error">{answer.message ?? JSON.stringify(answer)}</p>
          )}
          {reasons.map(([source, list]) => (
            <div key={source}>
              <h3>Reasons ({source})</h3>
              <ul>
                {list.map((r) => (
                  <li key={r.feature}>
                    <code>{r.feature}</code> in {r.bin} {r.direction} the score ({r.effect.toFixed(2)})
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </section>
      )}
    </>
  );
}

function ImagePick({ label, onPick, url, children }: { label: string; onPick: (file: File) => void; url?: string; children?: ComponentChildren }) {
  return (
    <div class="pick">
      <input type="file" accept="image/jpeg" aria-label={label} onChange={(e) => e.currentTarget.files?.[0] && onPick(e.currentTarget.files[0])} />
      {url ? (
        <div class="photo framed">
          <img src={url} alt={label} />
          {children}
        </div>
      ) : (
        <p class="empty">{label}</p>
      )}
    </div>
  );
}

/** A face box in the photo's own pixels, as POST /console/api/playground/faces answers it. */
interface FaceBox {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  score: number;
}

interface PhotoFaces {
  width: number;
  height: number;
  subject: FaceBox | null;
  verdict: string;
  others: FaceBox[];
  rejected: (FaceBox & { reason: string })[];
}

/** What face match does with the subject, by the engine's verdict on it. */
function subjectNote(faces: PhotoFaces): string {
  if (!faces.subject || faces.verdict === 'noFace') return 'No face found: the API answers "no face" for this photo.';
  if (faces.verdict === 'tooSmall') return 'The face is too small to compare: the API answers "no face".';
  const note = faces.verdict.startsWith('occluded: ') ? ` (note: ${faces.verdict.slice('occluded: '.length)})` : '';
  return `Green: the face compared, detector confidence ${faces.subject.score.toFixed(2)}${note}.`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The engine's boxes over the photo: the compared face in green, other faces in amber, non-faces dashed grey. */
function FaceOverlay({ faces }: { faces: PhotoFaces }) {
  const stroke = Math.max(2, Math.max(faces.width, faces.height) / 160);
  const box = (b: FaceBox, cls: string, title: string, key: string) => (
    <rect key={key} x={b.x1} y={b.y1} width={b.x2 - b.x1} height={b.y2 - b.y1} class={cls} style={{ strokeWidth: stroke }}>
      <title>{title}</title>
    </rect>
  );
  const s = faces.subject;
  const font = Math.max(12, Math.max(faces.width, faces.height) / 28);
  return (
    <svg viewBox={`0 0 ${faces.width} ${faces.height}`} preserveAspectRatio="none" data-testid="face-boxes">
      {faces.rejected.map((r, i) => box(r, 'face-rejected', `not a face: ${r.reason}`, `r${i}`))}
      {faces.others.map((o, i) => box(o, 'face-other', `another face (confidence ${o.score.toFixed(2)}), not compared`, `o${i}`))}
      {s && box(s, 'face-subject', `the face compared (confidence ${s.score.toFixed(2)})`, 'subject')}
      {s && (
        <text x={s.x1} y={s.y1 > font * 1.3 ? s.y1 - stroke * 1.5 : s.y2 + font} class="face-label" style={{ fontSize: font }}>
          compared
        </text>
      )}
    </svg>
  );
}

export function FaceMatchPlayground({ apps }: { apps: Application[] }) {
  const { key, picker } = useKey(apps);
  const [files, setFiles] = useState<(File | undefined)[]>([undefined, undefined]);
  const [answer, setAnswer] = useState<any>(null);
  const [status, setStatus] = useState('');
  const [faces, setFaces] = useState<(PhotoFaces | string | undefined)[]>([undefined, undefined]);
  // One object URL per chosen file, not per render.
  const urls = useMemo(() => files.map((f) => (f ? URL.createObjectURL(f) : undefined)), [files]);
  async function run() {
    const form = new FormData();
    for (const f of files) if (f) form.append('file[]', f, f.name);
    setStatus('Comparing…');
    setFaces([undefined, undefined]);
    // The public answer has no boxes: the console asks the face engine what it saw in each photo, beside it.
    const boxes = Promise.all(
      files.map((f) =>
        readAsDataUrl(f!)
          .then((data) => consoleApi<PhotoFaces>('POST', '/playground/faces', { image_base64: data }))
          .catch((err: Error) => `No boxes: ${err.message}`),
      ),
    );
    const res = await fetch('/dmp/checkface/v1/', { method: 'POST', headers: { api_key: key }, body: form });
    setStatus(`HTTP ${res.status}`);
    setAnswer(safeJson(await res.text()));
    setFaces(await boxes);
  }
  // A refusal's `data` is its reason (a string): only an object is a comparison.
  const data =
    answer?.data !== null && typeof answer?.data === 'object' ? (answer.data as { isMatch: boolean; similarity: number; isBothImgIDCard: boolean }) : undefined;
  return (
    <>
      <header class="page-head">
        <h2>Face match playground</h2>
        <p class="muted">
          <code>POST /dmp/checkface/v1</code>: the subject face of each JPEG or PNG (chosen by size, centrality, confidence and focus), compared; a photo with a second
          face as large and sharp is refused (407). Similarity is calibrated (0-100); a match needs the server's threshold. The boxes show which face was compared in each
          photo.
        </p>
      </header>
      {picker}
      <div class="two">
        {[0, 1].map((i) => {
          const found = faces[i];
          return (
            <section class="card" key={i}>
              <ImagePick
                label={i === 0 ? 'First photo (JPEG)' : 'Second photo (JPEG)'}
                url={urls[i]}
                onPick={(f) => {
                  setFiles((old) => old.map((x, j) => (j === i ? f : x)));
                  setFaces((old) => old.map((x, j) => (j === i ? undefined : x)));
                  setAnswer(null);
                }}
              >
                {typeof found === 'object' && <FaceOverlay faces={found} />}
              </ImagePick>
              {found !== undefined && (
                <p class={typeof found === 'string' ? 'error' : 'muted'} data-testid={`face-caption-${i}`}>
                  {typeof found === 'string'
                    ? found
                    : [
                        subjectNote(found),
                        found.others.length > 0 ? `Amber: ${plural(found.others.length, 'other face', 'other faces')}, not compared.` : '',
                        found.rejected.length > 0 ? `Dashed: ${plural(found.rejected.length, 'detection', 'detections')} dropped as not a face.` : '',
                      ]
                        .filter(Boolean)
                        .join(' ')}
                </p>
              )}
            </section>
          );
        })}
      </div>
      <div class="card row">
        <button class="primary" disabled={!key || !files[0] || !files[1]} onClick={() => void run().catch((e) => setStatus((e as Error).message))}>
          Compare faces
        </button>
        <span class="muted">{status}</span>
        {data && (
          <>
            <strong class={data.isMatch ? 'ok' : 'error'} data-testid="face-verdict">
              {data.isMatch ? 'Same person' : 'Different people'}
            </strong>
            <span data-testid="face-similarity">similarity {data.similarity}</span>
            <div class="bar gauge">
              <i style={{ width: `${Math.max(0, Math.min(100, data.similarity))}%` }} />
            </div>
            {data.isBothImgIDCard && <span class="muted">both photos look like ID cards</span>}
          </>
        )}
        {/* Face match's refusals (407-409) carry their reason in `data`; `message` stays "request successful.". */}
        {answer && !data && (
          <span class="error" data-testid="face-error">
            {String(typeof answer.data === 'string' ? `${answer.code}: ${answer.data}` : (answer.message ?? JSON.stringify(answer)))}
          </span>
        )}
      </div>
    </>
  );
}

const ASR_STATUS: Record<number, string> = {
  0: 'recognised',
  1: 'no voice found in the audio',
  2: 'canceled',
  9: 'the system could not recognise it (busy, or no recognition model installed)',
};

export function AsrPlayground({ apps }: { apps: Application[] }) {
  const { key, picker } = useKey(apps);
  const [file, setFile] = useState<File | null>(null);
  const [answer, setAnswer] = useState<any>(null);
  const [status, setStatus] = useState('');
  const fileUrl = useMemo(() => (file ? URL.createObjectURL(file) : ''), [file]);
  async function run() {
    if (!file) return;
    setStatus('Recognising…');
    const started = performance.now();
    const res = await fetch('/hmi/asr/general', { method: 'POST', headers: { api_key: key, 'content-type': file.type || 'application/octet-stream' }, body: file });
    setStatus(`HTTP ${res.status} in ${Math.round(performance.now() - started)} ms`);
    setAnswer(safeJson(await res.text()));
  }
  const utterances: string[] = answer?.hypotheses?.map((h: { utterance: string }) => h.utterance) ?? [];
  return (
    <>
      <header class="page-head">
        <h2>Speech to text playground</h2>
        <p class="muted">
          <code>POST /hmi/asr/general</code>: an audio file (wav, mp3, m4a, ogg, webm, flac) in, the transcript out, or the reason there is none.
        </p>
      </header>
      {picker}
      <div class="card row">
        <input type="file" accept="audio/*,video/webm" aria-label="Audio file" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        {fileUrl && <audio controls src={fileUrl} />}
        <button class="primary" disabled={!key || !file} onClick={() => void run().catch((e) => setStatus((e as Error).message))}>
          Transcribe
        </button>
        <span class="muted">{status}</span>
      </div>
      {answer && (
        <section class="card">
          <h3 data-testid="asr-verdict">{ASR_STATUS[answer.status as number] ?? `status ${String(answer.status)}`}</h3>
          {utterances.length > 0 ? <p class="transcript">{utterances.join(' ')}</p> : <p class="muted">{answer.message ?? 'No transcript.'}</p>}
        </section>
      )}
    </>
  );
}

/** GET /console/api/apps/:code/face-collections: the active recogniser and where each collection stands with it. */
interface FaceCollectionsView {
  recogniser: { name: string; embedding: number; similarityMap: string; installed: string[] };
  collections: {
    name: string;
    recogniser: string;
    similarityMap: string | null;
    faces: number;
    users: number;
    withoutCrop: number;
    notSearchable: number;
    state: 'current' | 'reindex' | 'missing';
  }[];
}

/** What the operator does about one collection, in words. */
function collectionAction(c: FaceCollectionsView['collections'][number], active: string): string {
  const enrol = (n: number, why: string) => (n > 0 ? ` ${n} face(s) ${why}: their users enrol again.` : '');
  if (c.state === 'missing') return `Embedded by ${c.recogniser}, which this server does not have: install it here (saola models add face) or its requests fail.`;
  if (c.state === 'reindex')
    return `Embedded by ${c.recogniser}: searched with it until saola face reindex --model ${active} moves it.${enrol(c.withoutCrop, 'have no kept photo and hold the reindex back (or it drops them from search with --force)')}`;
  return `Embedded by the active recogniser.${enrol(c.notSearchable, "kept another recogniser's vectors and are not searched")}`;
}

/** The application's face collections, each with the recogniser that embedded it; a click picks one. */
function FaceCollections({ code, refresh, onPick }: { code: string; refresh: number; onPick: (name: string) => void }) {
  const [view, setView] = useState<FaceCollectionsView | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    if (!code) return;
    setError('');
    consoleApi<FaceCollectionsView>('GET', `/apps/${code}/face-collections`)
      .then(setView)
      .catch((err) => setError((err as Error).message));
  }, [code, refresh]);
  if (error) return <p class="error">{error}</p>;
  if (!view) return null;
  const r = view.recogniser;
  return (
    <section class="card" data-testid="face-collections">
      <h3>Collections</h3>
      <p class="muted" data-testid="face-recogniser">
        Active recogniser: <strong>{r.name}</strong> ({r.embedding}-d embeddings, similarity map <code>{r.similarityMap}</code>); installed: {r.installed.join(', ')}. New
        collections and face match use it.
      </p>
      {view.collections.length === 0 ? (
        <p class="muted">No collections yet: the first add creates one.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Collection</th>
              <th>Users</th>
              <th>Faces</th>
              <th>Recogniser</th>
              <th>State</th>
            </tr>
          </thead>
          <tbody>
            {view.collections.map((c) => (
              <tr key={c.name} data-state={c.state}>
                <td>
                  <button class="link" onClick={() => onPick(c.name)}>
                    {c.name}
                  </button>
                </td>
                <td>{c.users}</td>
                <td>{c.faces}</td>
                <td>
                  <code>{c.recogniser}</code>
                </td>
                <td class={c.state === 'current' && c.notSearchable === 0 ? 'ok' : 'error'}>{collectionAction(c, r.name)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function FaceSearchPlayground({ apps }: { apps: Application[] }) {
  const { code, key, picker } = useKey(apps);
  const [refresh, setRefresh] = useState(0);
  const [collection, setCollection] = useState('demo');
  const [users, setUsers] = useState<{ id: string; name?: string }[] | null>(null);
  const [userId, setUserId] = useState('');
  const [userName, setUserName] = useState('');
  const [addFile, setAddFile] = useState<File | null>(null);
  const [searchFile, setSearchFile] = useState<File | null>(null);
  const [found, setFound] = useState<any>(null);
  const [message, setMessage] = useState('');
  const searchUrl = useMemo(() => (searchFile ? URL.createObjectURL(searchFile) : ''), [searchFile]);

  async function call(method: string, action: string, fields: Record<string, string>, file?: File | null) {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) if (v) form.append(k, v);
    if (file) form.append('file', file, file.name);
    const res = await fetch(`/dmp/facesearch/v2/${action}`, { method, headers: { api_key: key }, body: form });
    return { status: res.status, body: safeJson(await res.text()) as { code: string; data?: unknown; message?: string } };
  }
  async function list() {
    const res = await fetch(`/dmp/facesearch/v2/list?collection=${encodeURIComponent(collection)}`, { headers: { api_key: key } });
    const body = safeJson(await res.text()) as { data?: { id: string; name?: string }[] };
    setUsers(Array.isArray(body.data) ? body.data : []);
  }
  async function add(e: Event) {
    e.preventDefault();
    const r = await call('POST', 'add', { collection, id: userId, name: userName }, addFile);
    setMessage(`add: ${r.body.code} ${typeof r.body.data === 'string' ? r.body.data : ''}`);
    setRefresh((n) => n + 1);
    await list();
  }
  async function search() {
    const r = await call('POST', 'search', { collection }, searchFile);
    setFound(r.body);
  }
  const guard = (work: () => Promise<unknown>) => () => void work().catch((err) => setMessage((err as Error).message));
  const hits = found?.code === '200' ? (Array.isArray(found.data) ? found.data : [found.data]) : [];
  return (
    <>
      <header class="page-head">
        <h2>Face search playground</h2>
        <p class="muted">
          Collections of users and their faces (<code>/dmp/facesearch/v2</code>): browse, add a face, search with a photo.
        </p>
      </header>
      {picker}
      <FaceCollections code={code} refresh={refresh} onPick={setCollection} />
      <div class="card row">
        <label class="inline">
          Collection
          <input value={collection} onInput={(e) => setCollection(e.currentTarget.value)} aria-label="Collection" />
        </label>
        <button onClick={guard(list)} disabled={!key || !collection}>
          Show users
        </button>
        <span class="muted">{message}</span>
      </div>
      <div class="two">
        <section class="card">
          <h3>Users {users ? `(${users.length})` : ''}</h3>
          {users && users.length === 0 && <p class="muted">No users in this collection yet.</p>}
          {users && users.length > 0 && (
            <table>
              <tbody>
                {users.map((u) => (
                  <tr key={u.id}>
                    <td>
                      <code>{u.id}</code>
                    </td>
                    <td>{u.name ?? ''}</td>
                    <td>
                      <button
                        class="link danger"
                        onClick={guard(async () => (await call('DELETE', 'delete', { collection, id: u.id }), setRefresh((n) => n + 1), await list()))}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <form class="row" onSubmit={(e) => guard(() => add(e))()}>
            <input placeholder="user id" value={userId} onInput={(e) => setUserId(e.currentTarget.value)} aria-label="User id" />
            <input placeholder="name (optional)" value={userName} onInput={(e) => setUserName(e.currentTarget.value)} aria-label="User name" />
            <input type="file" accept="image/jpeg" aria-label="Face to add" onChange={(e) => setAddFile(e.currentTarget.files?.[0] ?? null)} />
            <button type="submit" disabled={!key || !userId || !addFile}>
              Add face
            </button>
          </form>
        </section>
        <section class="card">
          <h3>Search</h3>
          <div class="row">
            <input type="file" accept="image/jpeg" aria-label="Face to search" onChange={(e) => setSearchFile(e.currentTarget.files?.[0] ?? null)} />
            <button class="primary" onClick={guard(search)} disabled={!key || !searchFile}>
              Search
            </button>
          </div>
          {searchUrl && <img class="thumb" src={searchUrl} alt="searched face" />}
          {found && found.code !== '200' && (
            <p class="error">
              {found.code}: {String(found.data ?? found.message ?? '')}
            </p>
          )}
          {hits.map((h: { id: string; name?: string; similarity: number }) => (
            <p key={h.id}>
              <strong>{h.name || h.id}</strong> <code>{h.id}</code> · similarity {h.similarity}
            </p>
          ))}
        </section>
      </div>
    </>
  );
}
