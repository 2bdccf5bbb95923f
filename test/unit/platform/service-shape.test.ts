/**
 * Every service folder has the same files for the same roles (ARCHITECTURE.md, "Service folders"), so someone
 * who has read one service finds their way in all of them. A service that lacks a role says so below, with
 * the reason; an exception the folder no longer needs fails too, so the list stays true.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { SRC } from '../../support/import-graph.js';

/** The services, as folders of src/ (each holds the `module.ts` that src/services.ts lists). */
const SERVICES = ['console', 'credit', 'ekyc', 'face', 'liveness', 'nlu', 'reader', 'speech/tts', 'speech/asr'];

/** Folders above services: they hold what their services share, and are no service themselves. */
const GROUPS: Record<string, string> = {
  speech: 'text to speech and speech recognition: the sherpa-onnx model installation and the `models list|remove` commands both use',
};

/** The roles every service has, by file (a folder ends in /). */
const ROLES = ['module.ts', 'index.ts', 'routes.ts', 'service.ts', 'store.ts', 'schema.ts', 'errors.ts', 'config.ts', 'migrations.ts'];
/** Services that run a model or a program of their own keep its code in engine/. */
const WITH_ENGINE = ['credit', 'face', 'liveness', 'nlu', 'reader', 'speech/tts', 'speech/asr'];
/** Names that would blur a role: HTTP schemas are in routes.ts or api-schemas.ts, an engine is a folder, a store is store.ts. */
const MISNAMED: Record<string, string> = {
  'schemas.ts': 'routes.ts or api-schemas.ts (schema.ts holds row types)',
  'engine.ts': 'engine/index.ts',
  'settings-store.ts': 'store.ts',
};

/** What a service lacks, and why. */
const EXCEPTIONS: { service: string; missing: string[]; reason: string }[] = [
  { service: 'speech/asr', missing: ['store.ts', 'schema.ts', 'migrations.ts'], reason: 'no tables: recognition keeps nothing, its model is installed as files' },
  {
    service: 'reader',
    missing: ['engine/'],
    reason: 'its engine is the document pipeline: pipeline/ (the stages) and documents/<kind>/ (each kind of document), run by worker.ts',
  },
  { service: 'credit', missing: ['engine/'], reason: 'its engine is the scorecard in model/ (plain TypeScript) and its data sources in sources/' },
];

const isFolder = (p: string) => fs.existsSync(p) && fs.statSync(p).isDirectory();

/** What a service folder lacks or misnames, in the words EXCEPTIONS uses. */
function shapeProblems(service: string): string[] {
  const dir = path.join(SRC, service);
  const problems = ROLES.filter((file) => !fs.existsSync(path.join(dir, file)));
  if (WITH_ENGINE.includes(service) !== isFolder(path.join(dir, 'engine'))) problems.push(WITH_ENGINE.includes(service) ? 'engine/' : 'engine/ is not declared');
  for (const name of Object.keys(MISNAMED)) if (fs.existsSync(path.join(dir, name))) problems.push(`${name} is misnamed`);
  return problems;
}

test('every service folder has the shape, or declares what it lacks and why', () => {
  const wrong = SERVICES.flatMap((service) => {
    const declared = [...(EXCEPTIONS.find((e) => e.service === service)?.missing ?? [])].sort();
    const found = shapeProblems(service).sort();
    if (found.join() === declared.join()) return [];
    const named = found.map((p) => p.replace(/^(.*) is misnamed$/, (_, name: string) => `${name} (name it ${MISNAMED[name]})`));
    return [`src/${service}: lacks or misnames ${named.join(', ') || 'nothing'}; declared: ${declared.join(', ') || 'nothing'}`];
  });
  assert.deepEqual(wrong, []);
});

test('the service list is every folder of src/ with a module.ts, and the other folders are the platform or declared groups', () => {
  const withModule = fs
    .readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => f.endsWith('/module.ts'))
    .map((f) => f.slice(0, -'/module.ts'.length));
  assert.deepEqual(withModule.sort(), [...SERVICES].sort());
  const top = fs.readdirSync(SRC).filter((name) => isFolder(path.join(SRC, name)));
  for (const folder of top) {
    if (folder === 'platform' || SERVICES.includes(folder)) continue;
    assert.ok(folder in GROUPS, `src/${folder} is neither a service (no module.ts) nor a declared group`);
    const inner = fs.readdirSync(path.join(SRC, folder)).filter((name) => isFolder(path.join(SRC, folder, name)));
    for (const name of inner) assert.ok(SERVICES.includes(`${folder}/${name}`), `src/${folder}/${name}: a group holds services only`);
  }
});
