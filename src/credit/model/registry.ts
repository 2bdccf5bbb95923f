import type { CreditStore } from '../store.js';
import { parseScorecard, type Scorecard } from './scorecard.js';

export interface ActiveModel {
  /** "global/alpha/1/v1" for a shipped default, "<app>/alpha/1/v3" for an application's own. */
  ref: string;
  scorecard: Scorecard;
}

/**
 * Which scorecard scores (application, source, dltype): the application's
 * newest trained version, else the global default shipped with the project.
 * Models are parsed once and cached by id; each lookup asks the database
 * only for the newest version's id, so a model trained by the CLI while the
 * server runs is used from the next request on.
 */
export class ModelRegistry {
  private readonly cache = new Map<string, ActiveModel>();

  constructor(
    private readonly store: CreditStore,
    private readonly defaults: Scorecard[],
  ) {}

  /** Loads and checks every application's newest models (at start: a corrupt model shows at once, not on a request). */
  async preload(): Promise<{ loaded: number; failed: string[] }> {
    const failed: string[] = [];
    let loaded = 0;
    for (const row of await this.store.latestModelsOfAllApps()) {
      try {
        this.remember(row.id, row.app_code, parseScorecard(row.model));
        loaded++;
      } catch (err) {
        failed.push(`${row.app_code}/${row.source}/${row.dltype}/v${row.version}: ${(err as Error).message}`);
      }
    }
    return { loaded, failed };
  }

  defaultModel(source: string, dltype: number): ActiveModel | undefined {
    const scorecard = this.defaults.find((m) => m.source === source && m.dltype === dltype);
    return scorecard ? { ref: `global/${source}/${dltype}/v${scorecard.version}`, scorecard } : undefined;
  }

  get defaultRefs(): string[] {
    return this.defaults.map((m) => `global/${m.source}/${m.dltype}/v${m.version}`);
  }

  async model(appCode: string, source: string, dltype: number): Promise<ActiveModel | undefined> {
    const latest = await this.store.latestModel(appCode, source, dltype);
    if (!latest) return this.defaultModel(source, dltype);
    const cached = this.cache.get(latest.id);
    if (cached) return cached;
    const row = await this.store.getModel(appCode, latest.id);
    if (!row) return this.defaultModel(source, dltype);
    return this.remember(row.id, appCode, parseScorecard(row.model));
  }

  private remember(id: string, appCode: string, scorecard: Scorecard): ActiveModel {
    const model = { ref: `${appCode}/${scorecard.source}/${scorecard.dltype}/v${scorecard.version}`, scorecard };
    this.cache.set(id, model);
    return model;
  }
}
