/** Row types of the reader's tables. */

export interface ReaderAppSettingsRow {
  app_code: string;
  features: number;
  updated_time: string;
}

export type ReaderTables = {
  reader_app_settings: ReaderAppSettingsRow;
};
