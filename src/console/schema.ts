/** Row types of the console's tables. */

export interface ConsoleSessionRow {
  id_hash: string;
  csrf: string;
  created_time: string;
  expires_time: string;
}

export type ConsoleTables = {
  console_sessions: ConsoleSessionRow;
};
