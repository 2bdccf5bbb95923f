/**
 * Per-application switches a service offers to the console (the reader's
 * "distinguishing features" arrangement, say), so the console can show and
 * change them without importing the service's folder. The service keeps
 * storing the value its own way; the registry only names it.
 */
export interface AppSwitch {
  /** Stable key, `<service>.<name>`. */
  key: string;
  label: string;
  description: string;
  get(appCode: string): Promise<boolean>;
  set(appCode: string, on: boolean): Promise<void>;
}

export class AppSettingsRegistry {
  private readonly switches = new Map<string, AppSwitch>();

  register(entry: AppSwitch): void {
    this.switches.set(entry.key, entry);
  }

  list(): AppSwitch[] {
    return [...this.switches.values()];
  }

  find(key: string): AppSwitch | undefined {
    return this.switches.get(key);
  }
}
