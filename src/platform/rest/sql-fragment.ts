// SQL fragments: text with bound parameters, composed by a tagged template. The bottom of /rest/v1's
// SQL: the planner's statements (sql.ts), the policies' predicates and the membership rules all build
// on it, and it imports nothing of theirs.
export class Sql {
  constructor(
    readonly text: string,
    readonly params: readonly unknown[],
  ) {}
}

/** Tagged template: interpolated Sql is spliced in, anything else becomes a `?` parameter. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  let text = strings[0];
  const params: unknown[] = [];
  values.forEach((value, i) => {
    if (value instanceof Sql) {
      text += value.text;
      params.push(...value.params);
    } else {
      text += "?";
      params.push(value);
    }
    text += strings[i + 1];
  });
  return new Sql(text, params);
}

/** SQL text that is a constant of this module (operators, keywords). */
export const raw = (text: string) => new Sql(text, []);

/** A quoted identifier; callers pass names from the schema cache or generated aliases only. */
export function ident(name: string): Sql {
  return raw(`"${name.replaceAll('"', '""')}"`);
}

export function joinSql(parts: Sql[], separator: string): Sql {
  return new Sql(parts.map((p) => p.text).join(separator), parts.flatMap((p) => p.params));
}
