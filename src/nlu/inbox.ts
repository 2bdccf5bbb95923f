import type { Static } from 'typebox';
import { ServiceError } from '../platform/http/errors.js';
import type { HistorySettings, InboxItem, InboxLabelBody, InboxPage, InboxReason, InboxState, InboxStats, TrainingSet } from './api-schemas.js';
import { groupSimilar, SIMILAR_AT } from './engine/similarity.js';
import { NluErrors } from './errors.js';
import type { InboxEntry, InboxStore } from './inbox-store.js';
import { maskPersonalData } from './masking.js';
import type { HistoryRow, InboxRow } from './schema.js';
import type { NluService } from './service.js';
import { now } from './training.js';

/** A prediction whose second intent is this close to the first is unsure, even above the threshold. */
export const CLOSE_SECOND_MARGIN = 0.1;
/**
 * The newest items grouped per request. Grouping runs on the event loop: about 90 ms of CPU for 1,000 generated
 * chat texts once warm (150 ms for 2,000), so a read of the inbox never holds predictions up for long.
 */
const MAX_GROUPED = 1_000;
/** How long a process uses an application's history settings before reading them again (ms), as models and thresholds. */
const SETTINGS_RECHECK_MS = 1_000;
/** What the per-day counts count: items in, reported, and each resolution. */
const COUNTED = ['added', 'reported', 'labelled', 'dismissed', 'out_of_scope'] as const;
const DEFAULT_SETTINGS: Static<typeof HistorySettings> = { history_retention_days: 0, mask_history: false };

export interface RankedIntent {
  label: string;
  confidence: number;
}

/** Why a prediction belongs in the inbox (none: it does not), from its ranked intents before the threshold cut. */
export function unsureReasons(ranked: RankedIntent[], threshold: number): InboxReason[] {
  const [top, second] = ranked;
  if (!top) return ['no_intent'];
  const reasons: InboxReason[] = [];
  if (top.confidence < threshold) reasons.push('low_confidence');
  if (second && top.confidence - second.confidence <= CLOSE_SECOND_MARGIN) reasons.push('close_second');
  return reasons;
}

type PredictedAnswer = { intents?: RankedIntent[]; entities?: { start: number; end: number; value: string; real_value: string | number; subentities: unknown[] }[] };

/** Entity values read from the masked text (same offsets: the mask keeps lengths), so no number survives in them. */
function maskAnswer(content: string, answer: PredictedAnswer): PredictedAnswer {
  const points = Array.from(content);
  const mask = (e: NonNullable<PredictedAnswer['entities']>[number]): NonNullable<PredictedAnswer['entities']>[number] => {
    const value = points.slice(e.start, e.end).join('');
    return { ...e, value, real_value: value, subentities: (e.subentities as (typeof e)[]).map(mask) };
  };
  return { intents: answer.intents, entities: answer.entities?.map(mask) };
}

function toItem(row: InboxEntry): InboxItem {
  return {
    history_id: Number(row.history_id),
    content: row.content,
    reasons: row.reasons ? (row.reasons.split(',') as InboxReason[]) : [],
    top_intent: row.top_intent,
    top_confidence: Number(row.top_confidence),
    second_intent: row.second_intent,
    second_confidence: Number(row.second_confidence),
    state: row.state as InboxState,
    comment: row.comment,
    created_time: row.created_time,
    resolved_time: row.resolved_time ?? '',
    sample_code: row.sample_code ?? '',
  };
}

/**
 * Saved predictions turned into training data: the ones the model was unsure about or that hit no intent come in
 * when they are saved, the ones an end user reports when reported; grouped by similarity, labelled as an intent
 * (training samples that remember their origin), dismissed or marked out of scope. Also owns how the history is
 * kept: masking before a text is saved and the retention sweep.
 */
export class InboxService {
  private readonly settingsCache = new Map<string, { settings: Static<typeof HistorySettings>; readAt: number }>();

  constructor(
    private readonly store: InboxStore,
    private readonly data: NluService,
  ) {}

  /**
   * Saves a prediction in the history (masked when the application asks) and, when unsure, in the inbox. `ranked`
   * is undefined when the intents were not predicted: such a prediction is not judged.
   */
  async savePrediction(app: string, content: string, answer: PredictedAnswer, ranked: RankedIntent[] | undefined, threshold: number): Promise<number> {
    const settings = await this.cachedSettings(app);
    const saved = settings.mask_history ? maskPersonalData(content) : content;
    const stored = settings.mask_history ? maskAnswer(saved, answer) : answer;
    const reasons = ranked ? unsureReasons(ranked, threshold) : [];
    const created = now();
    for (let attempt = 0; ; attempt++) {
      // Integer ids (clients read history_id as int64): milliseconds x 1000 + a random part, below 2^53.
      const id = Date.now() * 1000 + Math.floor(Math.random() * 1000);
      const history: HistoryRow = {
        id,
        app_code: app,
        content: saved,
        answer: JSON.stringify({ intents: stored.intents ?? [], entities: stored.entities ?? [] }),
        created_time: created,
      };
      const item = reasons.length > 0 ? this.newItem(app, id, reasons, ranked ?? [], '', created) : undefined;
      try {
        await this.store.insertPrediction(history, item);
        return id;
      } catch (err) {
        if (attempt >= 5) throw err;
      }
    }
  }

  private newItem(app: string, id: number, reasons: InboxReason[], ranked: RankedIntent[], comment: string, created: string): InboxRow {
    return {
      history_id: id,
      app_code: app,
      reasons: reasons.join(','),
      top_intent: ranked[0]?.label ?? '',
      top_confidence: ranked[0]?.confidence ?? 0,
      second_intent: ranked[1]?.label ?? '',
      second_confidence: ranked[1]?.confidence ?? 0,
      state: 'open',
      comment,
      created_time: created,
      resolved_time: null,
      sample_code: null,
    };
  }

  /** An end user says the answer to a saved prediction was wrong: it comes into the inbox (again, unless labelled). */
  async report(app: string, historyId: number, comment = ''): Promise<InboxItem> {
    const history = await this.store.findHistory(app, historyId);
    if (!history) throw new ServiceError(NluErrors.historyNotFound, `No saved prediction ${historyId}`);
    const item = await this.store.findItem(app, historyId);
    if (!item) {
      const answer = JSON.parse(history.answer) as { intents?: RankedIntent[] };
      await this.store.insertItem(this.newItem(app, historyId, ['reported'], answer.intents ?? [], comment, history.created_time));
    } else {
      const reasons = new Set(item.reasons.split(',').filter(Boolean));
      reasons.add('reported');
      await this.store.updateItem(app, historyId, {
        reasons: [...reasons].join(','),
        comment: comment || item.comment,
        ...(item.state === 'labelled' ? {} : { state: 'open', resolved_time: null }),
      });
    }
    const [entry] = await this.store.entriesByIds(app, [historyId]);
    return toItem(entry!);
  }

  /** Items in `state` (open by default), the newest `MAX_GROUPED` grouped by similarity, groups largest first. */
  async list(app: string, query: { state?: InboxState; reason?: InboxReason; limit?: number; offset?: number }): Promise<Static<typeof InboxPage>> {
    await this.sweepApp(app);
    const state = query.state ?? 'open';
    const [total, rows] = await Promise.all([this.store.countEntries(app, state), this.store.listEntries(app, state, MAX_GROUPED)]);
    const items = rows.map(toItem).filter((i) => !query.reason || i.reasons.includes(query.reason));
    const groups = groupSimilar(items.map((i) => i.content)).map((members) => {
      const list = members.map((m) => items[m]!);
      return { group_id: list[0]!.history_id, size: list.length, suggested_intent: commonest(list.map((i) => i.top_intent)), items: list };
    });
    // Largest first; among equals the newest first (the order they were found in).
    groups.sort((a, b) => b.size - a.size);
    const offset = query.offset ?? 0;
    return {
      total_items: query.reason ? items.length : total,
      grouped_items: items.length,
      total_groups: groups.length,
      similarity: SIMILAR_AT,
      groups: groups.slice(offset, offset + (query.limit ?? 50)),
    };
  }

  /** Labels items as `intent`: each becomes a training sample (with its entity spans) whose origin is the item. */
  async label(
    app: string,
    body: Static<typeof InboxLabelBody>,
  ): Promise<{ labelled: number; samples_created: number; samples_skipped: number; intents_created: number }> {
    const ids = [...new Set(body.items.map((i) => i.history_id))];
    const entries = new Map((await this.store.entriesByIds(app, ids)).map((e) => [Number(e.history_id), e]));
    const missing = ids.find((id) => !entries.has(id));
    if (missing !== undefined) throw new ServiceError(NluErrors.inboxItemNotFound, `The inbox holds no prediction ${missing}`);
    const labelled = body.items.filter((item, n) => body.items.findIndex((other) => other.history_id === item.history_id) === n);
    const set: TrainingSet = {
      format: 'saola.nlu.v1',
      intents: [{ label: body.intent, description: '', type: 1 }],
      entities: [],
      samples: labelled.map((item) => {
        const content = entries.get(item.history_id)!.content;
        const points = Array.from(content.trim());
        // Spans count code points of the text as shown; the sample is that text trimmed, as every sample is.
        const lead = Array.from(content).length - Array.from(content.trimStart()).length;
        return {
          content,
          intent: body.intent,
          entities: (item.entities ?? []).map((e) => ({
            entity: e.entity,
            start: e.start - lead,
            end: e.end - lead,
            value: points.slice(e.start - lead, e.end - lead).join(''),
          })),
        };
      }),
    };
    const { result, sampleCodes } = await this.data.addLabelledSamples(
      app,
      set,
      labelled.map((item) => ({ source: 'inbox', history_id: item.history_id })),
    );
    const at = now();
    await this.store.resolve(app, ids, 'labelled', at);
    for (const [n, item] of labelled.entries()) {
      const code = sampleCodes[n];
      if (code) await this.store.updateItem(app, item.history_id, { sample_code: code });
    }
    return { labelled: ids.length, samples_created: result.samples_created, samples_skipped: result.samples_skipped, intents_created: result.intents_created };
  }

  /** Dismisses items, or marks them out of scope (what the bot is not meant to answer); answers how many there were. */
  async resolve(app: string, ids: number[], state: 'dismissed' | 'out_of_scope'): Promise<{ resolved: number }> {
    const unique = [...new Set(ids)];
    const found = await this.store.entriesByIds(app, unique);
    if (found.length < unique.length) {
      const known = new Set(found.map((e) => Number(e.history_id)));
      throw new ServiceError(NluErrors.inboxItemNotFound, `The inbox holds no prediction ${unique.find((id) => !known.has(id))}`);
    }
    return { resolved: await this.store.resolve(app, unique, state, now()) };
  }

  /** Counts per UTC day of the last `days` days, oldest first, every day listed. */
  async stats(app: string, days = 30): Promise<Static<typeof InboxStats>> {
    const first = new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
    const out = new Map<string, Static<typeof InboxStats>['days'][number]>();
    for (let d = 0; d < days; d++) {
      const day = new Date(Date.parse(`${first}T00:00:00Z`) + d * 86_400_000).toISOString().slice(0, 10);
      out.set(day, { day, added: 0, reported: 0, labelled: 0, dismissed: 0, out_of_scope: 0 });
    }
    for (const row of await this.store.dailyCounts(app, first)) {
      const entry = out.get(row.day);
      if (entry && (COUNTED as readonly string[]).includes(row.what)) entry[row.what as (typeof COUNTED)[number]] = Number(row.n);
    }
    return { days: [...out.values()] };
  }

  // History settings and retention

  async settings(app: string): Promise<Static<typeof HistorySettings>> {
    const row = await this.store.historySettings(app);
    return row ? { history_retention_days: Number(row.retention_days), mask_history: Number(row.mask) === 1 } : { ...DEFAULT_SETTINGS };
  }

  async setSettings(app: string, change: Partial<Static<typeof HistorySettings>>): Promise<Static<typeof HistorySettings>> {
    const next = { ...(await this.settings(app)), ...change };
    await this.store.setHistorySettings({ app_code: app, retention_days: next.history_retention_days, mask: next.mask_history ? 1 : 0, updated_time: now() });
    this.settingsCache.delete(app);
    await this.sweepApp(app);
    return next;
  }

  private async cachedSettings(app: string): Promise<Static<typeof HistorySettings>> {
    const known = this.settingsCache.get(app);
    if (known && Date.now() - known.readAt < SETTINGS_RECHECK_MS) return known.settings;
    const settings = await this.settings(app);
    if (this.settingsCache.size > 10_000) this.settingsCache.clear();
    this.settingsCache.set(app, { settings, readAt: Date.now() });
    return settings;
  }

  /** Deletes the application's saved predictions past its retention (their inbox items with them). */
  private async sweepApp(app: string): Promise<number> {
    const { history_retention_days: days } = await this.settings(app);
    return days > 0 ? this.store.deleteHistoryBefore(app, new Date(Date.now() - days * 86_400_000).toISOString()) : 0;
  }

  /** The retention sweep over every application that set one; answers the rows deleted. */
  async sweepHistory(at = Date.now()): Promise<number> {
    let deleted = 0;
    for (const { app_code, retention_days } of await this.store.retentions()) {
      deleted += await this.store.deleteHistoryBefore(app_code, new Date(at - Number(retention_days) * 86_400_000).toISOString());
    }
    return deleted;
  }
}

function commonest(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = '';
  let most = 0;
  for (const [v, n] of counts) if (n > most) [best, most] = [v, n];
  return best;
}
