import { fileSha256, ModelIntegrityError, SHIPPED_RECOGNISER } from './engine/models.js';
import type { RecogniserSpec } from './engine/recogniser.js';
import { SIMILARITY_MAP, UNCALIBRATED_MAP, type SimilarityMap } from './engine/similarity.js';
import { listFaceRecognisers, type InstalledRecogniser } from './models.js';

/**
 * The recognisers a process can embed with: the shipped one and those
 * installed in its data folder, the deployment's active one (new collections
 * and face match use it), and each one's similarity map: a calibration stored
 * by `saola face calibrate`, else the manifest's map, else the shipped map for
 * the shipped recogniser and UNCALIBRATED_MAP for any other.
 */
export class FaceRecognisers {
  readonly active: RecogniserSpec;
  private readonly byName: Map<string, InstalledRecogniser>;
  private stored = new Map<string, SimilarityMap>();
  readonly problems: string[];

  /** `dataDir` undefined: the shipped recogniser only. */
  constructor(dataDir: string | undefined, shippedDir?: string) {
    const { recognisers, active, broken } = listFaceRecognisers(dataDir, shippedDir);
    this.byName = new Map(recognisers.map((r) => [r.spec.name, r]));
    this.active = this.byName.get(active)!.spec;
    this.problems = broken;
    // The shipped file set is checked with the engine's other models; an installed active recogniser is checked here, so a server does not start on an altered file.
    if (this.active.name !== SHIPPED_RECOGNISER) {
      const digest = fileSha256(this.active.file);
      if (digest !== this.active.sha256)
        throw new ModelIntegrityError(`Face recogniser ${this.active.file} has sha256 ${digest}, expected ${this.active.sha256}: refusing to load it`);
    }
  }

  /** The recogniser stored embeddings of `name` come from; undefined when it is not installed here. */
  get(name: string): RecogniserSpec | undefined {
    return this.byName.get(name)?.spec;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** Calibrations read from the store (model name -> map); they win over the built-in and manifest maps. */
  useStoredMaps(maps: ReadonlyMap<string, SimilarityMap>): void {
    this.stored = new Map(maps);
  }

  similarityMap(name: string): SimilarityMap {
    return this.stored.get(name) ?? this.byName.get(name)?.similarity ?? (name === SHIPPED_RECOGNISER ? SIMILARITY_MAP : UNCALIBRATED_MAP);
  }

  describe(): Record<string, unknown> {
    return {
      recogniser: this.active.name,
      embedding: this.active.output.size,
      similarityMap: this.similarityMap(this.active.name).version,
      installed: this.names(),
      ...(this.problems.length > 0 ? { problems: this.problems } : {}),
    };
  }
}
