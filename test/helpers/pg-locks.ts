// PostgreSQL lock tests: a test's own connection holds row locks while the service runs a request against them.
import type pg from 'pg';

/** Resolves once a connection of the service waits for a lock this client holds. */
export async function someoneWaitsFor(client: pg.Client): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const { rows } = await client.query<{ waiting: number }>(
      'select count(*)::int as waiting from pg_stat_activity where pg_backend_pid() = any(pg_blocking_pids(pid))',
    );
    if (rows[0]!.waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no connection of the service ever waited for the test transaction');
}
