/** A service's name and the path prefixes of its public routes (a `ServiceModule` is one). */
export interface ServicePrefixes {
  name: string;
  prefixes: readonly string[];
}

/** Which metered service a request path belongs to, from the modules' prefixes (longest prefix first). */
export class ServicePaths {
  private readonly prefixes: readonly [string, string][];
  readonly names: readonly string[];

  constructor(modules: readonly ServicePrefixes[]) {
    this.prefixes = modules.flatMap((m) => m.prefixes.map((p): [string, string] => [p, m.name])).sort((a, b) => b[0].length - a[0].length);
    this.names = [...new Set(modules.filter((m) => m.prefixes.length > 0).map((m) => m.name))];
  }

  serviceOf(path: string): string | undefined {
    for (const [prefix, name] of this.prefixes) if (path.startsWith(prefix)) return name;
    return undefined;
  }

  isService(name: string): boolean {
    return this.names.includes(name);
  }
}
