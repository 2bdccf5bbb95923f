import { parseArgs } from 'node:util';
import { CommandUsageError, withApplication, type Command, type CommandContext } from './platform/cli.js';
import { UsageStore, utcDay, type QuotaRow } from './platform/usage/index.js';
import { servicePaths } from './services.js';

const METERED_SERVICES = servicePaths.names;
const isMeteredService = (name: string) => servicePaths.isService(name);

const USAGE_HELP = `Usage: saola usage --app APP [--days N] [--service S] [--json]

Requests of one application per service and endpoint over the last N days
(default 14, UTC): count, errors (HTTP 4xx and 5xx), p50 and p95 latency.
A running server writes its counts every few seconds.`;

const QUOTA_HELP = `Usage: saola quota set --app APP --service S [--per-minute N] [--per-day M] [--json]
       saola quota set --app APP --service S --clear
       saola quota show --app APP [--json]

Limits an application's requests to one service (${METERED_SERVICES.join(', ')});
past a limit the service answers its own 429 with Retry-After. Running
servers pick a change up within seconds.`;

function parse(
  ctx: CommandContext,
  help: string,
  options: Record<string, { type: 'string' | 'boolean' }>,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: ctx.args, allowPositionals: true, options: { ...options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
    return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals };
  } catch (err) {
    throw new CommandUsageError(`${(err as Error).message}\n\n${help}`);
  }
}

const ms = (v: number | null) => (v === null ? '-' : `${v} ms`);

/** `saola usage --app APP`: what the admin API and the console's usage page show, on the command line. */
export const usageCommand: Command = async (ctx) => {
  const { values, positionals } = parse(ctx, USAGE_HELP, { app: { type: 'string' }, days: { type: 'string' }, service: { type: 'string' } });
  if (values.help) {
    ctx.stdout(USAGE_HELP + '\n');
    return 0;
  }
  if (positionals.length) throw new CommandUsageError(`Unexpected "${positionals.join(' ')}"\n\n${USAGE_HELP}`);
  const days = values.days === undefined ? 14 : Number(values.days);
  if (!Number.isInteger(days) || days < 1 || days > 366) throw new CommandUsageError('--days must be a whole number from 1 to 366');
  const service = values.service as string | undefined;
  if (service !== undefined && !isMeteredService(service)) throw new CommandUsageError(`--service must be one of ${METERED_SERVICES.join(', ')}`);
  return withApplication(ctx, values.app as string | undefined, USAGE_HELP, async (store, app) => {
    const report = await new UsageStore(store).report(app.app_code, utcDay(Date.now() - (days - 1) * 86_400_000), utcDay(), service);
    if (values.json) {
      ctx.stdout(JSON.stringify({ name: app.name, ...report }) + '\n');
      return 0;
    }
    const lines = [`Application "${app.name}" (${app.app_code}), ${report.from} to ${report.to} UTC: ${report.total} requests, ${report.errors} errors`];
    if (report.endpoints.length === 0) lines.push('No requests in this period.');
    else {
      const rows = report.endpoints.map((e) => [e.service, e.endpoint, String(e.count), String(e.errors), ms(e.p50_ms), ms(e.p95_ms)]);
      const head = ['service', 'endpoint', 'count', 'errors', 'p50', 'p95'];
      const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
      const fmt = (r: string[]) => r.map((c, i) => (i >= 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
      lines.push('', fmt(head), ...rows.map(fmt));
    }
    ctx.stdout(lines.join('\n') + '\n');
    return 0;
  });
};

function describeQuota(q: QuotaRow): string {
  return `${q.service}: ${q.per_minute ?? 'no limit'} per minute, ${q.per_day ?? 'no limit'} per day`;
}

function limit(value: unknown, flag: string): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000_000) throw new CommandUsageError(`${flag} must be a whole number from 1`);
  return n;
}

/** `saola quota set|show`: per-application request limits per service. */
export const quotaCommand: Command = async (ctx) => {
  const { values, positionals } = parse(ctx, QUOTA_HELP, {
    app: { type: 'string' },
    service: { type: 'string' },
    'per-minute': { type: 'string' },
    'per-day': { type: 'string' },
    clear: { type: 'boolean' },
  });
  if (values.help) {
    ctx.stdout(QUOTA_HELP + '\n');
    return 0;
  }
  const [verb, ...extra] = positionals;
  if (verb !== 'set' && verb !== 'show') throw new CommandUsageError(`Use quota set or quota show\n\n${QUOTA_HELP}`);
  if (extra.length) throw new CommandUsageError(`Unexpected "${extra.join(' ')}"\n\n${QUOTA_HELP}`);
  return withApplication(ctx, values.app as string | undefined, QUOTA_HELP, async (store, app) => {
    const usage = new UsageStore(store);
    if (verb === 'set') {
      const service = values.service as string | undefined;
      if (!service || !isMeteredService(service)) throw new CommandUsageError(`--service must be one of ${METERED_SERVICES.join(', ')}`);
      const perMinute = limit(values['per-minute'], '--per-minute');
      const perDay = limit(values['per-day'], '--per-day');
      if (!values.clear && perMinute === null && perDay === null) throw new CommandUsageError(`Give --per-minute, --per-day or both (or --clear)\n\n${QUOTA_HELP}`);
      if (values.clear && (perMinute !== null || perDay !== null)) throw new CommandUsageError('--clear takes no limits');
      const quota = await usage.setQuota(app.app_code, service, perMinute, perDay);
      ctx.stdout(
        values.json
          ? JSON.stringify({ app_code: app.app_code, service, per_minute: perMinute, per_day: perDay }) + '\n'
          : quota
            ? `Application "${app.name}": ${describeQuota(quota)}.\n`
            : `Application "${app.name}": no limit on ${service} any more.\n`,
      );
      return 0;
    }
    const quotas = await usage.quotas(app.app_code);
    ctx.stdout(
      values.json
        ? JSON.stringify({ app_code: app.app_code, name: app.name, quotas }) + '\n'
        : quotas.length === 0
          ? `Application "${app.name}" has no quotas (no limits).\n`
          : [`Application "${app.name}":`, ...quotas.map((q) => '  ' + describeQuota(q))].join('\n') + '\n',
    );
    return 0;
  });
};

export const usageCommands: Record<string, Command> = { usage: usageCommand, quota: quotaCommand };
