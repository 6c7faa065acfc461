/** One UpdateExpression built from named parts, with placeholders for every name so no reserved word can bite. */
export class Update {
  private readonly clauses: Record<'SET' | 'REMOVE' | 'ADD' | 'DELETE', string[]> = { SET: [], REMOVE: [], ADD: [], DELETE: [] };
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private counter = 0;

  /** An attribute, or a path into maps (`['attributes', 'plan']`). */
  private path(attribute: string | readonly string[]): string {
    const parts = typeof attribute === 'string' ? [attribute] : attribute;
    return parts
      .map((part) => {
        const placeholder = `#n${this.counter++}`;
        this.names[placeholder] = part;
        return placeholder;
      })
      .join('.');
  }

  private value(value: unknown): string {
    const placeholder = `:v${this.counter++}`;
    this.values[placeholder] = value;
    return placeholder;
  }

  /** `expression` may say `#self` (the attribute), `:v` (the value) and `:empty` (an empty list). */
  set(attribute: string | readonly string[], value: unknown, expression = ':v'): this {
    const path = this.path(attribute);
    const placeholder = this.value(value);
    if (expression.includes(':empty')) this.values[':empty'] = [];
    this.clauses.SET.push(`${path} = ${expression.replaceAll(':v', placeholder).replaceAll('#self', path)}`);
    return this;
  }

  remove(attribute: string | readonly string[]): this {
    this.clauses.REMOVE.push(this.path(attribute));
    return this;
  }

  /** Adds to a number, or adds members to a set. */
  add(attribute: string | readonly string[], value: number | Set<string>): this {
    this.clauses.ADD.push(`${this.path(attribute)} ${this.value(value)}`);
    return this;
  }

  /** Removes members from a set (the attribute goes when it empties). */
  delete(attribute: string | readonly string[], members: Set<string>): this {
    this.clauses.DELETE.push(`${this.path(attribute)} ${this.value(members)}`);
    return this;
  }

  /** Sets the non-null values of a map attribute's entries and removes those given as null. */
  changeEntries(attribute: string, changes: Record<string, unknown>): this {
    for (const [name, value] of Object.entries(changes)) {
      if (value === null) this.remove([attribute, name]);
      else this.set([attribute, name], value);
    }
    return this;
  }

  isEmpty(): boolean {
    return Object.values(this.clauses).every((list) => list.length === 0);
  }

  expression(): string {
    return Object.entries(this.clauses)
      .filter(([, list]) => list.length > 0)
      .map(([verb, list]) => `${verb} ${list.join(', ')}`)
      .join(' ');
  }
}
