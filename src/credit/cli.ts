import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { AuthAdminError, Credentials } from '../platform/auth/credentials.js';
import { CommandUsageError, type Command, type CommandContext } from '../platform/cli.js';
import { migrateToLatest, openStore, type Store } from '../platform/db/database.js';
import { loadCreditConfig } from './config.js';
import { CsvError, readCsv } from './csv.js';
import { evaluateDefaults, evaluateOutcomes, formatEvaluation } from './evaluation.js';
import { importAlphaEvents, type RejectedRow } from './import.js';
import { createCreditParts, type CreditParts } from './index.js';
import { SOURCE_NAMES, type SourceName } from './sources/source.js';
import { eventsCsv, generatePopulation, outcomesCsv } from './synthetic.js';
import { trainFromOutcomes } from './training.js';

const USAGE = `Usage: saola credit <command> [options]

  import alpha EVENTS.csv --app APP [--strict] [--rejects FILE]
      Load events into APP's alpha feature store. Columns: phone, event_type
      (activation | topup | bill_payment | device_change), occurred_at (Unix
      seconds or ISO-8601 with a zone), amount (VND; topup, bill_payment),
      days_late (bill_payment), event_id (optional). Valid rows are imported,
      invalid ones reported by line (exit 2); --strict imports nothing unless
      every row is valid. Importing the same file again adds nothing.
  train SOURCE --outcomes LABELS.csv --app APP [--dltype 1|2]
      Train a scorecard per dltype from outcomes (phone, decision_time,
      dltype, repaid 1/0); features are taken as of each decision_time. The
      model is stored as APP's next version and used from the next request.
  eval [--app APP --outcomes LABELS.csv] [--source SOURCE]
      AUC, KS, Brier and a calibration table on a held-out split: without
      --outcomes, the shipped default models on a fresh synthetic population;
      with it, APP's current models on the held-out phones of the file.
  models --app APP              list APP's trained models
  synth --people N [--seed S] --events FILE --outcomes FILE
      Write a SYNTHETIC population (invented people) as import and outcome files.

APP is an application's code or name. Add --json for one JSON object on stdout.`;

const OPTIONS = {
  app: { type: 'string' },
  outcomes: { type: 'string' },
  dltype: { type: 'string' },
  source: { type: 'string' },
  strict: { type: 'boolean', default: false },
  rejects: { type: 'string' },
  people: { type: 'string' },
  seed: { type: 'string' },
  events: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

const MAX_SHOWN_REJECTS = 20;

function need(value: string | undefined, flag: string): string {
  if (!value) throw new CommandUsageError(`${flag} is required\n\n${USAGE}`);
  return value;
}

function sourceArg(raw: string | undefined): SourceName {
  const name = (raw ?? 'alpha') as SourceName;
  if (!SOURCE_NAMES.includes(name)) throw new CommandUsageError(`Unknown source "${raw}": use ${SOURCE_NAMES.join(', ')}`);
  return name;
}

function intArg(raw: string | undefined, flag: string, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new CommandUsageError(`${flag} must be an integer from ${min} to ${max}`);
  return n;
}

function csvFile(path: string) {
  if (!fs.existsSync(path) || !fs.statSync(path).isFile()) throw new CommandUsageError(`Cannot read ${path}: no such file`);
  return () => readCsv(fs.createReadStream(path));
}

function rejectLines(rejects: RejectedRow[], total: number): string {
  if (total === 0) return '';
  const shown = rejects.slice(0, MAX_SHOWN_REJECTS).map((r) => `  line ${r.line}: ${r.reason}`);
  const more = total > shown.length ? `\n  ... and ${total - shown.length} more` : '';
  return `Rejected rows:\n${shown.join('\n')}${more}\n`;
}

async function withParts<T>(ctx: CommandContext, work: (parts: CreditParts, store: Store) => Promise<T>): Promise<T> {
  const store = openStore(ctx.config.databaseUrl);
  try {
    await migrateToLatest(store, ctx.migrations);
    return await work(createCreditParts(store, loadCreditConfig()), store);
  } finally {
    await store.close();
  }
}

async function appCodeOf(store: Store, app: string): Promise<string> {
  try {
    return (await new Credentials(store, 0).findApp(app)).app_code;
  } catch (err) {
    if (err instanceof AuthAdminError) throw new CommandUsageError(err.message);
    throw err;
  }
}

async function runImport(ctx: CommandContext, positionals: string[], values: Values): Promise<number> {
  const [source, file] = positionals;
  if (source !== 'alpha') throw new CommandUsageError(`Only the alpha feature store takes imports (beta and gamma are external sources), got "${source ?? ''}"`);
  const open = csvFile(need(file, 'EVENTS.csv'));
  return withParts(ctx, async (parts, store) => {
    const appCode = await appCodeOf(store, need(values.app, '--app'));
    const report = await importAlphaEvents(parts.store, appCode, open, {
      fileName: file,
      strict: values.strict,
      abandonAfterMs: loadCreditConfig().importAbandonSeconds * 1000,
    });
    if (values.rejects) {
      fs.writeFileSync(values.rejects, 'line,reason\n' + report.rejects.map((r) => `${r.line},"${r.reason.replace(/"/g, '""')}"`).join('\n') + '\n');
    }
    if (values.json) ctx.stdout(JSON.stringify(report) + '\n');
    else {
      ctx.stdout(
        `${report.refused ? 'Refused (--strict): nothing imported.' : 'Imported'} ${file} into app ${appCode}: ${report.rows} rows, ` +
          `${report.inserted} new, ${report.duplicates} already present, ${report.rejected} rejected.\n` +
          rejectLines(report.rejects, report.rejected),
      );
    }
    return report.rejected > 0 ? 2 : 0;
  });
}

async function runTrain(ctx: CommandContext, positionals: string[], values: Values): Promise<number> {
  const source = sourceArg(positionals[0]);
  const outcomes = need(values.outcomes, '--outcomes');
  const open = csvFile(outcomes);
  const onlyDltype = values.dltype === undefined ? undefined : intArg(values.dltype, '--dltype', 1, 1, 2);
  return withParts(ctx, async (parts, store) => {
    const appCode = await appCodeOf(store, need(values.app, '--app'));
    const report = await trainFromOutcomes(parts, appCode, source, open(), { fileName: outcomes, onlyDltype });
    if (values.json) ctx.stdout(JSON.stringify(report) + '\n');
    else {
      const lines = [`Outcomes: ${report.outcomes} valid, ${report.rejected} rejected, ${report.no_data} with no ${source} data at their decision time.`];
      for (const m of report.models) {
        if (m.error) lines.push(`dltype ${m.dltype}: not trained: ${m.error}`);
        else {
          const h = m.holdout;
          lines.push(
            `dltype ${m.dltype}: stored ${source} model v${m.version} (${m.id}), ${m.train_rows} training rows, ${m.holdout_rows} held out` +
              (h ? `: AUC ${h.auc.toFixed(3)}, KS ${h.ks.toFixed(3)}, Brier ${h.brier.toFixed(3)}` : ''),
            `  features: ${m.features?.join(', ')}`,
          );
        }
      }
      if (report.models.length === 0) lines.push('No model trained: no outcome had data.');
      ctx.stdout(lines.join('\n') + '\n' + rejectLines(report.rejects, report.rejected));
    }
    return report.models.length > 0 && report.models.every((m) => !m.error) ? 0 : 1;
  });
}

async function runEval(ctx: CommandContext, values: Values): Promise<number> {
  const source = sourceArg(values.source);
  return withParts(ctx, async (parts, store) => {
    if (!values.outcomes) {
      const { population, results } = evaluateDefaults(parts);
      if (values.json) ctx.stdout(JSON.stringify({ population, results }) + '\n');
      else ctx.stdout(`Default models on a ${population}\n\n${results.map(formatEvaluation).join('\n\n')}\n`);
      return 0;
    }
    const open = csvFile(values.outcomes);
    const appCode = await appCodeOf(store, need(values.app, '--app'));
    const out = await evaluateOutcomes(parts, appCode, source, open());
    if (values.json) ctx.stdout(JSON.stringify(out) + '\n');
    else {
      ctx.stdout(
        `${values.outcomes}, held-out phones only; ${out.no_data} outcomes had no ${source} data\n\n` +
          out.results.map(formatEvaluation).join('\n\n') +
          (out.errors.length ? `\n${out.errors.join('\n')}` : '') +
          '\n' +
          rejectLines(out.rejects, out.rejects.length),
      );
    }
    return out.results.length > 0 ? 0 : 1;
  });
}

async function runModels(ctx: CommandContext, values: Values): Promise<number> {
  return withParts(ctx, async (parts, store) => {
    const appCode = await appCodeOf(store, need(values.app, '--app'));
    const models = await parts.store.listModels(appCode);
    if (values.json) ctx.stdout(JSON.stringify({ app_code: appCode, models, defaults: parts.models.defaultRefs }) + '\n');
    else {
      const lines = models.map((m) => `${m.source} dltype ${m.dltype} v${m.version}  ${m.id}  ${m.created_time}  rows ${m.train_rows}  holdout ${m.metrics}`);
      ctx.stdout((lines.length ? lines.join('\n') : `No trained models; app ${appCode} uses the defaults (${parts.models.defaultRefs.join(', ')}).`) + '\n');
    }
    return 0;
  });
}

async function runSynth(ctx: CommandContext, values: Values): Promise<number> {
  const people = intArg(need(values.people, '--people'), '--people', 0, 1, 1_000_000);
  const seed = intArg(values.seed, '--seed', 1, 0, 2 ** 31);
  const eventsFile = need(values.events, '--events');
  const outcomesFile = need(values.outcomes, '--outcomes');
  const population = generatePopulation({ seed, people });
  const write = (file: string, lines: Iterable<string>) => {
    const fd = fs.openSync(file, 'w');
    try {
      let buffer = '';
      for (const line of lines) {
        buffer += line;
        if (buffer.length > 1 << 20) {
          fs.writeSync(fd, buffer);
          buffer = '';
        }
      }
      fs.writeSync(fd, buffer);
    } finally {
      fs.closeSync(fd);
    }
  };
  write(eventsFile, eventsCsv(population));
  write(outcomesFile, outcomesCsv(population));
  const events = population.reduce((s, p) => s + p.events.length, 0);
  ctx.stdout(
    values.json
      ? JSON.stringify({ people, seed, events, events_file: eventsFile, outcomes_file: outcomesFile }) + '\n'
      : `Wrote a SYNTHETIC population (invented people, seed ${seed}): ${events} events to ${eventsFile}, ${people} outcomes to ${outcomesFile}.\n`,
  );
  return 0;
}

/** `saola credit import|train|eval|models|synth ...` */
export const creditCommand: Command = async (ctx) => {
  let parsed;
  try {
    parsed = parseArgs({ args: ctx.args, options: OPTIONS, allowPositionals: true });
  } catch (err) {
    throw new CommandUsageError(`${(err as Error).message}\n\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  const [verb, ...rest] = positionals;
  if (values.help || !verb || verb === 'help') {
    ctx.stdout(USAGE + '\n');
    return verb || values.help ? 0 : 2;
  }
  try {
    switch (verb) {
      case 'import':
        return await runImport(ctx, rest, values);
      case 'train':
        return await runTrain(ctx, rest, values);
      case 'eval':
        return await runEval(ctx, values);
      case 'models':
        return await runModels(ctx, values);
      case 'synth':
        return await runSynth(ctx, values);
      default:
        throw new CommandUsageError(`Unknown credit command "${verb}"\n\n${USAGE}`);
    }
  } catch (err) {
    if (err instanceof CsvError) {
      ctx.stderr(`Invalid CSV: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
};
