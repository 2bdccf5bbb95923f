import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseCommandArgs, type Command } from '../platform/cli.js';
import { migrateToLatest, openStore } from '../platform/db/database.js';
import { openPlatform } from '../platform/index.js';
import { calibrate, CalibrationError, formatCalibration, readLabels, type Calibration, type EmbeddedPhoto } from './calibration.js';
import { loadFaceConfig } from './config.js';
import { analyze } from './engine/worker.js';
import { FaceCrops } from './crops.js';
import { RecogniserError } from './engine/recogniser.js';
import { installFaceRecogniser, listFaceRecognisers, removeFaceRecogniser, setActiveRecogniser } from './models.js';
import { FaceRecognisers } from './recognisers.js';
import { cropEmbedder, reindexFaces } from './reindex.js';
import { collectionModel, FaceStore } from './store.js';
import { evaluateFacePairs, formatEvaluation } from './evaluation.js';

/** `saola eval face --pairs <dir>`: TAR at FAR 1e-3/1e-4, EER and a refit of the similarity map from labelled pairs. */
export const faceEvalCommand: Command = async (ctx) => {
  let values: { pairs?: string; json?: boolean };
  try {
    ({ values } = parseArgs({ args: ctx.args, options: { pairs: { type: 'string' }, json: { type: 'boolean' } }, allowPositionals: false }));
  } catch (err) {
    ctx.stderr(`${(err as Error).message}\nusage: saola eval face --pairs <dir with pairs.csv (file_x,file_y,same_person) and the images> [--json]\n`);
    return 2;
  }
  if (!values.pairs) {
    ctx.stderr('usage: saola eval face --pairs <dir with pairs.csv (file_x,file_y,same_person) and the images> [--json]\n');
    return 2;
  }
  if (!fs.existsSync(path.join(values.pairs, 'pairs.csv'))) {
    ctx.stderr(`no pairs.csv in ${values.pairs}\n`);
    return 1;
  }
  const result = await evaluateFacePairs(values.pairs);
  ctx.stdout(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatEvaluation(result)}\n`);
  return 0;
};

const ADD_USAGE = `usage: saola models add face <folder> [--name NAME] [--no-activate] [--force]

Copies an ONNX face recogniser into <data dir>/models/face/NAME after checking
it in a child process (it loads, takes one aligned face, answers a finite,
non-zero embedding that depends on the face). Its input size, layout and
output size are read from the graph; a saola-face.json in the folder may state
them and the normalisation, colour order, alignment template and a similarity
map (docs/face.md). It becomes the active recogniser unless --no-activate:
restart saola, then move the enrolled faces with saola face reindex.
`;

/** `saola models add face <folder>`: check and install a recogniser, and make it active. */
export const faceModelsAddCommand: Command = async (ctx) => {
  const parsed = parseCommandArgs(ctx, ADD_USAGE, {
    name: { type: 'string' },
    'no-activate': { type: 'boolean', default: false },
    force: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  });
  if (typeof parsed === 'number') return parsed;
  if (parsed.positionals.length !== 1) {
    ctx.stderr(ADD_USAGE);
    return 2;
  }
  const activate = !parsed.values['no-activate'];
  try {
    const { spec, norm, dir } = await installFaceRecogniser(ctx.config.dataDir, parsed.positionals[0], {
      name: parsed.values.name,
      activate,
      force: parsed.values.force,
      shippedDir: loadFaceConfig(process.env).modelDir,
    });
    const i = spec.input;
    ctx.stdout(
      `Installed the face recogniser ${spec.name} in ${dir}: input ${i.width}x${i.height} ${i.layout.toUpperCase()} ${i.colour.toUpperCase()}, ` +
        `(p - ${i.mean.join('/')}) / ${i.std.join('/')}, ${spec.output.size}-d output; the test face embeds with length ${norm.toFixed(3)}\n`,
    );
    ctx.stdout(
      activate
        ? `Active face recogniser: ${spec.name}. Restart saola to use it for new collections and face match, then run saola face reindex --model ${spec.name}, and saola face calibrate --labels DIR.\n`
        : `Not active (saola models activate face ${spec.name}).\n`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof RecogniserError)) throw err;
    ctx.stderr(`Refused: ${err.message}\nThe recogniser was not installed.\n`);
    return 1;
  }
};

/** `saola models activate face NAME`: the recogniser new collections and face match use (the shipped one by its name). */
export const faceModelsActivateCommand: Command = async (ctx) => {
  const [name, ...rest] = ctx.args;
  if (!name || rest.length > 0) {
    ctx.stderr('usage: saola models activate face NAME\n');
    return 2;
  }
  const { recognisers } = listFaceRecognisers(ctx.config.dataDir);
  if (!recognisers.some((r) => r.spec.name === name)) {
    ctx.stderr(`No face recogniser named ${name} (saola models list)\n`);
    return 1;
  }
  setActiveRecogniser(ctx.config.dataDir, name);
  ctx.stdout(`Active face recogniser: ${name}. Restart saola to apply; saola face reindex --model ${name} moves the enrolled faces.\n`);
  return 0;
};

/** `saola models remove face NAME`: refused for the active recogniser and for one a collection still serves. */
export const faceModelsRemoveCommand: Command = async (ctx) => {
  const [name, ...rest] = ctx.args;
  if (!name || rest.length > 0) {
    ctx.stderr('usage: saola models remove face NAME\n');
    return 2;
  }
  const store = openStore(ctx.config.databaseUrl);
  try {
    await migrateToLatest(store, ctx.migrations);
    const serving = (await new FaceStore(store).allCollections()).filter((c) => collectionModel(c) === name);
    if (serving.length > 0) {
      ctx.stderr(
        `Refused: ${serving.length} collection(s) are served by ${name} (first: application ${serving[0].app_code}, "${serving[0].name}"): reindex them to another recogniser first\n`,
      );
      return 1;
    }
    removeFaceRecogniser(ctx.config.dataDir, name);
    ctx.stdout(`Removed the face recogniser ${name}.\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof RecogniserError)) throw err;
    ctx.stderr(`Refused: ${err.message}\n`);
    return 1;
  } finally {
    await store.close();
  }
};

const REINDEX_USAGE = 'usage: saola face reindex [--model NAME] [--collection NAME] [--force]\n';

/**
 * `saola face reindex [--model NAME]`: moves every collection to the
 * recogniser NAME (default: the active one), re-embedding each face from its
 * kept crop while search serves the old embeddings, and switching each
 * collection in one transaction. Resumable: run it again after a crash. Faces
 * enrolled without a crop are listed (their users must enrol again); their
 * collection is switched only with --force.
 */
export const faceReindexCommand: Command = async (ctx) => {
  const parsed = parseCommandArgs(ctx, REINDEX_USAGE, {
    model: { type: 'string' },
    collection: { type: 'string' },
    force: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  });
  if (typeof parsed === 'number') return parsed;
  if (parsed.positionals.length > 0) {
    ctx.stderr(REINDEX_USAGE);
    return 2;
  }
  const { values } = parsed;
  const cfg = loadFaceConfig(process.env);
  const recognisers = new FaceRecognisers(ctx.config.dataDir, cfg.modelDir);
  const target = values.model ?? recognisers.active.name;
  const spec = recognisers.get(target);
  if (!spec) {
    ctx.stderr(`No face recogniser named ${target} (saola models list)\n`);
    return 1;
  }
  const platform = await openPlatform(ctx.config, ctx.migrations);
  try {
    const embed = await cropEmbedder(spec, cfg.modelDir);
    const outcomes = await reindexFaces({
      store: new FaceStore(platform.store),
      crops: new FaceCrops(platform.blobs),
      model: target,
      embed,
      collection: values.collection,
      force: values.force,
      report: ctx.stdout,
    });
    const withoutCrop = outcomes.filter((o) => o.withoutCrop.length > 0);
    for (const o of withoutCrop) {
      ctx.stdout(
        `application ${o.appCode}, collection "${o.collection}": enrol again (no kept photo): ${o.withoutCrop.map((u) => `${u.userId} (${u.faces})`).join(', ')}\n`,
      );
    }
    const held = outcomes.filter((o) => o.outcome === 'held');
    if (outcomes.length === 0) ctx.stdout(`${values.collection === undefined ? 'no collections' : `no collection "${values.collection}"`}: nothing to reindex\n`);
    if (held.length > 0) {
      ctx.stderr(
        `${held.length} collection(s) were not switched: they hold faces enrolled without a kept photo. Re-enrol those users (/delete_faces, then /add), or pass --force to switch anyway (those faces then leave search until enrolled again).\n`,
      );
      return 1;
    }
    return 0;
  } finally {
    await platform.lifecycle.close();
  }
};

const CALIBRATE_USAGE = `usage: saola face calibrate --labels DIR [--dry-run] [--json]

Embeds the labelled photos of DIR (a folder per person, or labels.csv with
file,identity, or pairs.csv) with the active recogniser, reports the genuine
and impostor distributions, TAR at FAR 1e-3, 1e-4 and zero impostors and the
suggested thresholds, and stores the fitted similarity map for that recogniser
(not with --dry-run). Restart saola to apply it.
`;

/** `saola face calibrate --labels DIR`: fits and stores the active recogniser's similarity map on the operator's people. */
export const faceCalibrateCommand: Command = async (ctx) => {
  const parsed = parseCommandArgs(ctx, CALIBRATE_USAGE, {
    labels: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  });
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  if (!values.labels || parsed.positionals.length > 0) {
    ctx.stderr(CALIBRATE_USAGE);
    return 2;
  }
  let labelled: ReturnType<typeof readLabels>;
  try {
    labelled = readLabels(values.labels);
  } catch (err) {
    ctx.stderr(`${(err as Error).message}\n`);
    return 1;
  }
  const cfg = loadFaceConfig(process.env);
  const recogniser = new FaceRecognisers(ctx.config.dataDir, cfg.modelDir).active;
  const photos: EmbeddedPhoto[] = [];
  for (const [i, p] of labelled.photos.entries()) {
    const r = await analyze({
      image: new Uint8Array(fs.readFileSync(path.join(labelled.dir, p.file))),
      detectThreshold: cfg.detectThreshold,
      checkCard: false,
      subject: { centreWeight: cfg.subjectCentreWeight, secondFaceSharpness: cfg.secondFaceSharpness },
      recogniser,
      ...(cfg.modelDir ? { modelDir: cfg.modelDir } : {}),
    });
    photos.push({ ...p, embedding: r.ok && r.primary ? r.primary.embedding : null });
    if ((i + 1) % 25 === 0) ctx.stderr(`embedded ${i + 1}/${labelled.photos.length}\n`);
  }
  let calibration: Calibration;
  try {
    calibration = calibrate(recogniser.name, photos, `${recogniser.name}-calibrated-${new Date().toISOString().slice(0, 16).replace(/[-:T]/g, '')}`);
  } catch (err) {
    if (!(err instanceof CalibrationError)) throw err;
    ctx.stderr(`${err.message}\n`);
    return 1;
  }
  ctx.stdout(values.json ? `${JSON.stringify(calibration, null, 2)}\n` : `${formatCalibration(calibration)}\n`);
  if (values['dry-run']) return 0;
  const store = openStore(ctx.config.databaseUrl);
  try {
    await migrateToLatest(store, ctx.migrations);
    await new FaceStore(store).storeSimilarityMap(recogniser.name, calibration.map, { ...calibration, labels: labelled.from });
  } finally {
    await store.close();
  }
  if (!values.json) ctx.stdout(`Stored the similarity map ${calibration.map.version} for ${recogniser.name}. Restart saola to apply it.\n`);
  return 0;
};
