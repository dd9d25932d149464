// Measuring kept answers through the app: SELECT statements from the app's own metrics (METRICS=on), and a retry
// for the rare measurement that another commit interrupted (on PostgreSQL any commit in the cluster moves the
// signal, and other test files write to it at the same time).
import type { TestApp } from '../helpers/app.js';

/**
 * `measure()` (after `prepare()`, again on every attempt) in a window where the change signal did not move: every
 * fence inside it saw what the one before it saw. Retried while some commit, anywhere, moved it. A read that
 * should find a kept answer must be primed inside `measure`, so that the priming read is in the window too.
 */
export async function quietly<T>(
  t: TestApp,
  measure: () => Promise<T>,
  prepare: () => Promise<unknown> = async () => {},
): Promise<T> {
  const changes = t.app.context.database.changes!;
  for (let attempt = 1; ; attempt++) {
    await prepare();
    const before = await changes();
    const result = await measure();
    if ((await changes()) === before || attempt === 200) return result;
  }
}

export { selectsOf } from '../helpers/statements.js';
