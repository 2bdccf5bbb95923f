import { parseArgs } from 'node:util';
import { AuthAdminError, Credentials, type Application } from '../platform/auth/credentials.js';
import { CommandUsageError, type Command } from '../platform/cli.js';
import { migrateToLatest, openStore } from '../platform/db/database.js';
import { ReaderSettingsStore, type ReaderAppSettings } from './store.js';

const USAGE = `Usage: saola reader features APP on|off|show [--json]

  on     APP has the separate arrangement: ID card backs answer their
         distinguishing features (features, features_prob)
  off    the default: backs answer features and features_prob as "N/A", and
         the text read there is dropped before anything keeps it
  show   print APP's current setting

APP is an application's code or name. A running server sees a change on its
next request. Add --json for one JSON object on stdout.`;

const VERBS = ['on', 'off', 'show'] as const;

function describe(app: Application, settings: ReaderAppSettings): string {
  const state = settings.features ? 'returned (arranged)' : 'withheld ("N/A", not arranged)';
  const since = settings.updated_time ? `, set ${settings.updated_time}` : ', the default';
  return `Application "${app.name}" (${app.app_code}): ID card back features are ${state}${since}.`;
}

/** `saola reader features APP on|off|show`: the per-application arrangement for a back's distinguishing features. */
export const readerFeaturesCommand: Command = async (ctx) => {
  let parsed;
  try {
    parsed = parseArgs({
      args: ctx.args,
      options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
      allowPositionals: true,
    });
  } catch (err) {
    throw new CommandUsageError(`${(err as Error).message}\n\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    ctx.stdout(USAGE + '\n');
    return 0;
  }
  const [appArg, verb, ...extra] = positionals;
  if (!appArg || !verb) throw new CommandUsageError(`APP and one of ${VERBS.join(', ')} are required\n\n${USAGE}`);
  if (!(VERBS as readonly string[]).includes(verb)) throw new CommandUsageError(`Unknown setting "${verb}": use ${VERBS.join(', ')}\n\n${USAGE}`);
  if (extra.length > 0) throw new CommandUsageError(`Unexpected "${extra.join(' ')}"\n\n${USAGE}`);

  const store = openStore(ctx.config.databaseUrl);
  try {
    await migrateToLatest(store, ctx.migrations);
    let app: Application;
    try {
      app = await new Credentials(store, 0).findApp(appArg);
    } catch (err) {
      if (err instanceof AuthAdminError) throw new CommandUsageError(err.message);
      throw err;
    }
    const settings = new ReaderSettingsStore(store.db);
    const result = verb === 'show' ? await settings.get(app.app_code) : await settings.setFeatures(app.app_code, verb === 'on');
    ctx.stdout(
      values.json
        ? JSON.stringify({ app_code: app.app_code, name: app.name, features: result.features, updated_time: result.updated_time }) + '\n'
        : describe(app, result) + '\n',
    );
    return 0;
  } finally {
    await store.close();
  }
};
