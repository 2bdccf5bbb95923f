import { integerSetting, textSetting, type Env } from '../platform/settings.js';

export interface ConsoleConfig {
  /** The operator's password; without it the console API refuses everything. */
  adminPassword: string | undefined;
  sessionHours: number;
  /** Failed sign-ins from one address before it is locked out, and for how long. */
  maxFailures: number;
  lockMinutes: number;
}

export function loadConsoleConfig(env: Env = process.env): ConsoleConfig {
  return {
    adminPassword: textSetting(env, 'SAOLA_ADMIN_PASSWORD'),
    sessionHours: integerSetting(env, 'SAOLA_CONSOLE_SESSION_HOURS', 12, 1, 24 * 30),
    maxFailures: integerSetting(env, 'SAOLA_CONSOLE_MAX_FAILURES', 5, 1, 1000),
    lockMinutes: integerSetting(env, 'SAOLA_CONSOLE_LOCK_MINUTES', 15, 1, 24 * 60),
  };
}
