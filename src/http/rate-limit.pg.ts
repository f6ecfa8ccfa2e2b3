// Rate limits every instance of a Postgres deployment shares (rate-limit.ts says what they count):
// one row per hit in answerwatch_rate_limits, a key's hits judged and written under a transaction
// lock on that key, so two instances cannot both take a key's last place. Times are the app's
// clock (tests move it). A key's expired hits go when it is hit again; every limiter's, now and then.
import type { SQL } from "bun";
import type { RateLimitStore } from "./rate-limit";

/** One hit in this many also sweeps the limiter's expired hits of every key. */
const SWEEP_EVERY = 100;

export function createPgRateLimits(sql: SQL, now: () => number = Date.now): RateLimitStore {
  let hits = 0;
  return {
    limiter(name, { limit, windowMs }) {
      const bounds = () => {
        const t = now();
        return { at: new Date(t).toISOString(), since: new Date(t - windowMs).toISOString() };
      };
      return {
        async hit(key) {
          const { at, since } = bounds();
          const sweep = ++hits % SWEEP_EVERY === 0;
          return sql.begin(async (tx) => {
            await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`${name}\n${key}`}, 0))`;
            if (sweep) await tx`DELETE FROM answerwatch_rate_limits WHERE limiter = ${name} AND at <= ${since}`;
            const taken = await tx`
              WITH gone AS (DELETE FROM answerwatch_rate_limits WHERE limiter = ${name} AND key = ${key} AND at <= ${since}),
                   recent AS (SELECT count(*) AS n FROM answerwatch_rate_limits WHERE limiter = ${name} AND key = ${key} AND at > ${since})
              INSERT INTO answerwatch_rate_limits (limiter, key, at) SELECT ${name}, ${key}, ${at} FROM recent WHERE recent.n < ${limit}
              RETURNING 1`;
            return taken.length === 1;
          });
        },
        async allows(key) {
          const { since } = bounds();
          const [row] = await sql`SELECT count(*)::int AS n FROM answerwatch_rate_limits WHERE limiter = ${name} AND key = ${key} AND at > ${since}`;
          return (row as { n: number }).n < limit;
        },
      };
    },
  };
}
