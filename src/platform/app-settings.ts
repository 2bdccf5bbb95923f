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

/**
 * A document of per-application settings a service offers to the console (the eKYC flow's, say): its JSON
 * schema (the console's form is drawn from it), the deployment's values, and what an application overrides.
 */
export interface AppSection {
  /** Stable key, `<service>.<name>`. */
  key: string;
  label: string;
  description: string;
  /** JSON schema (TypeBox) of the overrides document: an object whose properties are all optional. */
  schema: unknown;
  /** The values an application without overrides gets. */
  defaults: Record<string, unknown>;
  get(appCode: string): Promise<Record<string, unknown>>;
  /** Why `values` is not a valid overrides document, or undefined. */
  check(values: unknown): string | undefined;
  /** Replaces the application's overrides (checked first). */
  set(appCode: string, values: Record<string, unknown>): Promise<void>;
}

export class AppSettingsRegistry {
  private readonly switches = new Map<string, AppSwitch>();
  private readonly sections = new Map<string, AppSection>();

  registerSection(entry: AppSection): void {
    this.sections.set(entry.key, entry);
  }

  listSections(): AppSection[] {
    return [...this.sections.values()];
  }

  findSection(key: string): AppSection | undefined {
    return this.sections.get(key);
  }

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
