/**
 * Which service a request path belongs to, for metering and quotas. Names are
 * the ones operators type (`saola quota set --service credit`).
 */
export const METERED_SERVICES = ['nlu', 'reader', 'face', 'tts', 'asr', 'credit'] as const;
export type MeteredService = (typeof METERED_SERVICES)[number];

const PREFIXES: readonly [string, MeteredService][] = [
  ['/api/v3/', 'nlu'],
  ['/vision/', 'reader'],
  ['/cmt', 'reader'],
  ['/dmp/facesearch/', 'face'],
  ['/dmp/checkface/', 'face'],
  ['/hmi/tts/', 'tts'],
  ['/hmi/asr', 'asr'],
  ['/dmp/creditscoring', 'credit'],
];

export function serviceOfPath(path: string): MeteredService | undefined {
  for (const [prefix, service] of PREFIXES) if (path.startsWith(prefix)) return service;
  return undefined;
}

export function isMeteredService(name: string): name is MeteredService {
  return (METERED_SERVICES as readonly string[]).includes(name);
}
