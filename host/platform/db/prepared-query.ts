import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';

/**
 * A query of the hot path that Kysely builds and compiles once per database (once per dialect),
 * after which each run only binds its values: building and compiling cost as much as SQLite's
 * primary-key read. `parameters` lists the values in the order the compiled SQL binds them; the
 * first compile checks that it does, so a query whose SQL binds them otherwise fails at once.
 */
export class PreparedQuery<DB, A extends unknown[], R> {
  // Keyed by the dialect's adapter, which a database's transactions share with it.
  private readonly compiled = new WeakMap<object, CompiledQuery<R>>();

  constructor(
    private readonly build: (db: Kysely<DB>, ...args: A) => Compilable<R>,
    private readonly parameters: (...args: A) => unknown[],
  ) {}

  execute(db: Kysely<DB>, ...args: A): Promise<QueryResult<R>> {
    const values = this.parameters(...args);
    const key = db.getExecutor().adapter;
    const compiled = this.compiled.get(key);
    if (compiled) return db.executeQuery({ ...compiled, parameters: values });
    const first = this.build(db, ...args).compile();
    if (first.parameters.length !== values.length || first.parameters.some((p, i) => p !== values[i])) {
      return Promise.reject(new Error(`prepared query binds its values in another order than given: ${first.sql}`));
    }
    this.compiled.set(key, first);
    return db.executeQuery(first);
  }
}
