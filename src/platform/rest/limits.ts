// How much work one /rest/v1 request may ask for. Queries run on the thread that serves every
// other request, so a request whose cost grows with its own size (operand lists, filters, columns,
// embeds, wildcards) is refused up front with a Postgres "program limit exceeded" error (class 54)
// instead of holding that thread. Costs that grow with the data are bounded per row by these and by
// the write-time bounds on JSON columns (constraints.ts).
import { AppError } from "../../http/errors";

export const REST_LIMITS = {
  /** Filters in one request, counting every condition inside or=/and= trees. */
  filters: 100,
  /** Values of one `in.(…)` list. */
  inValues: 1000,
  /** Elements of one cs/cd/ov operand, and items of one any/all list. */
  operandItems: 100,
  /** Output columns of one level of a select, and embedded resources in one request. */
  columns: 200,
  embeds: 20,
  /** Embeds inside embeds. */
  embedDepth: 4,
  /** Length of one like/ilike pattern, and its `*`/`%` wildcards (each can multiply a match's cost). */
  patternLength: 256,
  patternWildcards: 4,
  /** Terms of one order= (each over an embed is a subquery per row). */
  orderTerms: 32,
  /** Steps of one JSON path (`->`, `->>`). */
  jsonSteps: 16,
} as const;

export function limitExceeded(code: "54001" | "54011" | "54023", message: string, limit: number): AppError {
  return new AppError(400, code, message, { details: `The limit is ${limit}.`, hint: "Split the request into smaller ones." });
}

/** A like/ilike pattern within the limits above, or the 54001 refusal (SQL filters and function rows alike). */
export function checkLikePattern(pattern: string): string {
  const wildcards = pattern.match(/[*%]+/g)?.length ?? 0;
  if (pattern.length > REST_LIMITS.patternLength) throw limitExceeded("54001", `like pattern longer than ${REST_LIMITS.patternLength} characters`, REST_LIMITS.patternLength);
  if (wildcards > REST_LIMITS.patternWildcards) throw limitExceeded("54001", `like pattern with ${wildcards} wildcards`, REST_LIMITS.patternWildcards);
  return pattern;
}
