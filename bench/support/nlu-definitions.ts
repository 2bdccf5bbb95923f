import type { EntitySpec } from '../nlu-dataset.js';
import type { EntityDefinition } from '../../src/nlu/model/model.js';

/** The generated dataset's entities as the engine's training input takes them (the API's entity records). */
export function definitionsOf(entities: Record<string, EntitySpec>): EntityDefinition[] {
  return Object.entries(entities).map(([label, spec]) => ({
    label,
    type: spec.type,
    keywords: spec.keywords ? Object.entries(spec.keywords).map(([value, synonyms]) => ({ value, synonyms })) : undefined,
  }));
}
