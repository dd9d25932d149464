// The webhook sender. Any number of processes may run it against one database:
// - the fan-out (fan-out.ts) turns new events into deliveries, each event once;
// - a claim picks webhooks that have a delivery due and are not busy, locks them (PostgreSQL: FOR UPDATE SKIP
//   LOCKED) and marks them busy for a lease, so each webhook has one delivery in flight across all processes and
//   its deliveries go out in event order;
// - each claimed delivery is sent in its own slot (WEBHOOK_CONCURRENCY per process), so a slow receiver holds one
//   slot for at most WEBHOOK_TIMEOUT_MS and never the others;
// - the outcome, the retry time or FAILED, and the webhook's failure streak are written in one transaction.
// A process that dies mid-send leaves the webhook busy until the lease ends; then any process sends it again
// (at-least-once). Time comes from the app's clock, so tests move through the retry schedule without waiting.
import { sql } from 'kysely';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import type {
  DB,
  EventsTable,
  Role,
  UserStatus,
  WebhookDeliveriesTable,
  WebhooksTable,
} from '../../../core/db/schema.js';
import type { SecretBox } from '../../../core/events/secret-box.js';
import { settledBefore } from '../../../core/events/settle.js';
import { canReadEvent, loadEventFacts } from '../../../core/events/visibility.js';
import { fanOutBatch } from './fan-out.js';
import { AUTO_DISABLE_AFTER, retryDelayMs } from '../../../core/outbound/retry.js';
import { sendDelivery } from './sender.js';
import type { SendResult, SendSettings } from './sender.js';

/** The first 1 KB of a response body is kept in the delivery log, never more. */
const KEPT_BODY_CHARS = 1024;
/** How many webhooks with due deliveries one claim considers. */
const CLAIM_WINDOW = 50;

interface Claimed {
  webhook: WebhooksTable;
  delivery: WebhookDeliveriesTable;
}

export interface DeliveryOutcome {
  webhookId: string;
  deliveryId: string;
  /** 'hidden': the webhook's creator may not see the event; the delivery was dropped unsent. */
  result: 'succeeded' | 'retrying' | 'failed' | 'hidden';
}

export interface DeliveryWorker {
  /** Sends what is due until nothing is left (tests; `cli`); returns the outcomes. */
  drain(): Promise<DeliveryOutcome[]>;
  start(): void;
  stop(): Promise<void>;
  /** Called after every attempt (metrics). */
  observe(listener: (outcome: DeliveryOutcome, durationMs: number) => void): void;
}

export function createDeliveryWorker({
  db,
  dialect,
  clock,
  secretBox,
  settings,
  concurrency,
  pollMs,
  settleMs,
  logger,
}: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  secretBox: SecretBox;
  settings: SendSettings;
  concurrency: number;
  pollMs: number;
  /** Events younger than this are not fanned out yet (core/events/settle.ts). */
  settleMs: number;
  logger: FastifyBaseLogger;
}): DeliveryWorker {
  const leaseMs = settings.timeoutMs + 5000;
  const inFlight = new Set<Promise<DeliveryOutcome | undefined>>();
  const listeners: ((outcome: DeliveryOutcome, durationMs: number) => void)[] = [];
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let ticking: Promise<number> | undefined;
  let tickAgain = false;

  async function fanOutAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const dispatched = await fanOutBatch(db, dialect, clock.now().toISOString(), settledBefore(settleMs));
      total += dispatched;
      if (dispatched === 0) return total;
    }
  }

  async function claim(slots: number): Promise<Claimed[]> {
    const nowDate = clock.now();
    const now = nowDate.toISOString();
    return db.transaction().execute(async (trx) => {
      // Deliveries of events after the oldest one not yet fanned out wait for it: another process may be fanning
      // it out right now (its batch is locked), and its deliveries must not be overtaken by later ones.
      const frontier = await trx
        .selectFrom('events')
        .select((eb) => eb.fn.min('id').as('id'))
        .where('dispatched_at', 'is', null)
        .executeTakeFirst();
      const before = frontier?.id ?? null;
      const due = await trx
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
        .select(['d.webhook_id', (eb) => eb.fn.min('d.next_attempt_at').as('due')])
        .where('d.status', '=', 'PENDING')
        .where('d.next_attempt_at', '<=', now)
        .$if(before !== null, (query) => query.where('d.event_id', '<', before!))
        .where('w.active', '=', true)
        .where((eb) => eb.or([eb('w.busy_until', 'is', null), eb('w.busy_until', '<', now)]))
        .groupBy('d.webhook_id')
        .orderBy('due')
        .limit(CLAIM_WINDOW)
        .execute();
      if (due.length === 0) return [];
      const webhooks = await trx
        .selectFrom('webhooks')
        .selectAll()
        .where(
          'id',
          'in',
          due.map((row) => row.webhook_id),
        )
        .where('active', '=', true)
        .where((eb) => eb.or([eb('busy_until', 'is', null), eb('busy_until', '<', now)]))
        .limit(slots)
        .$if(dialect === 'postgres', (query) => query.modifyEnd(sql`for update skip locked`))
        .execute();
      if (webhooks.length === 0) return [];
      const claimed: Claimed[] = [];
      for (const webhook of webhooks) {
        // Event order: the oldest event among the due deliveries goes first.
        const delivery = await trx
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('webhook_id', '=', webhook.id)
          .where('status', '=', 'PENDING')
          .where('next_attempt_at', '<=', now)
          .$if(before !== null, (query) => query.where('event_id', '<', before!))
          .orderBy('event_id')
          .orderBy('id')
          .limit(1)
          .executeTakeFirst();
        if (delivery !== undefined) claimed.push({ webhook, delivery });
      }
      if (claimed.length > 0) {
        await trx
          .updateTable('webhooks')
          .set({ busy_until: new Date(nowDate.getTime() + leaseMs).toISOString() })
          .where(
            'id',
            'in',
            claimed.map((entry) => entry.webhook.id),
          )
          .execute();
      }
      return claimed;
    });
  }

  /** Whether the webhook may carry the event: its creator could see it now (pings go to their webhook). */
  /** The delivery's event with its webhook creator's role and status, in one read. */
  function readEventFor(delivery: WebhookDeliveriesTable, webhook: WebhooksTable) {
    const creator = (eb: ExpressionBuilder<DB, 'events'>) =>
      eb.selectFrom('users').where('users.id', '=', webhook.created_by);
    return db
      .selectFrom('events')
      .selectAll('events')
      .select((eb) => [
        creator(eb).select('users.role').as('creator_role'),
        creator(eb).select('users.status').as('creator_status'),
      ])
      .where('events.id', '=', delivery.event_id)
      .executeTakeFirst();
  }

  /** Whether the webhook may carry the event: its creator could see it now (pings go to their webhook). */
  async function mayCarry(
    webhook: WebhooksTable,
    event: EventsTable,
    creator: { role: Role | null; status: UserStatus | null },
  ): Promise<boolean> {
    if (event.type === 'webhook.ping') return event.subject_id === webhook.id;
    if (creator.role === null) return false;
    // A banned creator's webhooks carry only what the public sees.
    const reader = creator.status === 'BANNED' ? null : { userId: webhook.created_by, role: creator.role };
    return canReadEvent(reader, event, await loadEventFacts(db, reader, [event]));
  }

  function secretsOf(webhook: WebhooksTable): string[] {
    const secrets = [secretBox.open(webhook.secret_encrypted)];
    const expires = webhook.previous_secret_expires_at;
    if (
      webhook.previous_secret_encrypted !== null &&
      expires !== null &&
      Date.parse(expires) > clock.now().getTime()
    ) {
      try {
        secrets.push(secretBox.open(webhook.previous_secret_encrypted));
      } catch {
        // A previous secret sealed under an older SECRET: the current one signs alone.
      }
    }
    return secrets;
  }

  async function attempt(webhook: WebhooksTable, event: EventsTable): Promise<SendResult> {
    let secrets: string[];
    try {
      secrets = secretsOf(webhook);
    } catch {
      // Sealed under another SECRET: nothing can be signed until the webhook's secret is rotated.
      return { ok: false, error: 'SECRET_UNREADABLE: rotate the webhook secret', durationMs: 0 };
    }
    return sendDelivery({ url: webhook.url, format: webhook.format, secrets }, event, settings);
  }

  async function drop({ webhook, delivery }: Claimed): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('webhook_deliveries').where('id', '=', delivery.id).execute();
      await trx.updateTable('webhooks').set({ busy_until: null }).where('id', '=', webhook.id).execute();
    });
  }

  async function record(
    { webhook, delivery }: Claimed,
    result: SendResult,
  ): Promise<DeliveryOutcome['result']> {
    const now = clock.now();
    const attempts = delivery.attempts + 1;
    const delay = result.ok ? null : retryDelayMs(attempts);
    const status = result.ok ? 'SUCCEEDED' : delay === null ? 'FAILED' : 'PENDING';
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('webhook_deliveries')
        .set({
          status,
          attempts,
          last_attempt_at: now.toISOString(),
          next_attempt_at: delay === null ? null : new Date(now.getTime() + delay).toISOString(),
          last_response_status: 'status' in result ? result.status : null,
          last_response_body: 'body' in result ? result.body.slice(0, KEPT_BODY_CHARS) : null,
          last_error: 'error' in result ? result.error : result.ok ? null : `HTTP ${result.status}`,
          duration_ms: result.durationMs,
        })
        .where('id', '=', delivery.id)
        .execute();
      if (status !== 'FAILED') {
        // A success ends the failure streak; a retry leaves it as it is.
        const streak = status === 'SUCCEEDED' ? { consecutive_failures: 0 } : {};
        await trx
          .updateTable('webhooks')
          .set({ busy_until: null, ...streak })
          .where('id', '=', webhook.id)
          .execute();
        return;
      }
      const current = await trx
        .selectFrom('webhooks')
        .select(['consecutive_failures', 'active'])
        .where('id', '=', webhook.id)
        .executeTakeFirst();
      if (current === undefined) return;
      const failures = current.consecutive_failures + 1;
      const disable = failures >= AUTO_DISABLE_AFTER && Boolean(current.active);
      await trx
        .updateTable('webhooks')
        .set({
          busy_until: null,
          consecutive_failures: failures,
          ...(disable
            ? {
                active: false,
                disabled_reason: `Disabled after ${failures} consecutive failed deliveries (last: ${
                  'error' in result ? result.error : `HTTP ${result.status}`
                })`,
                updated_at: now.toISOString(),
              }
            : {}),
        })
        .where('id', '=', webhook.id)
        .execute();
      if (disable)
        logger.warn({ webhookId: webhook.id, failures }, 'webhook disabled after failed deliveries');
    });
    return status === 'SUCCEEDED' ? 'succeeded' : status === 'FAILED' ? 'failed' : 'retrying';
  }

  async function deliver(claimed: Claimed): Promise<DeliveryOutcome> {
    const started = performance.now();
    const { webhook, delivery } = claimed;
    const outcome = (result: DeliveryOutcome['result']): DeliveryOutcome => ({
      webhookId: webhook.id,
      deliveryId: delivery.id,
      result,
    });
    const found = await readEventFor(delivery, webhook);
    if (found === undefined) {
      await drop(claimed);
      return outcome('hidden');
    }
    const { creator_role: role, creator_status: status, ...event } = found;
    if (!(await mayCarry(webhook, event, { role: role ?? null, status: status ?? null }))) {
      await drop(claimed);
      return outcome('hidden');
    }
    const result = await attempt(webhook, event);
    const done = outcome(await record(claimed, result));
    for (const listener of listeners) listener(done, performance.now() - started);
    return done;
  }

  /** Fans out, then fills the free slots; returns how many deliveries it started. */
  async function fill(): Promise<number> {
    await fanOutAll();
    const free = concurrency - inFlight.size;
    if (free <= 0) return 0;
    const claimed = await claim(free);
    for (const entry of claimed) {
      const work = deliver(entry).catch((error: unknown) => {
        logger.error(
          { err: error, webhookId: entry.webhook.id, deliveryId: entry.delivery.id },
          'delivery failed',
        );
        return undefined;
      });
      inFlight.add(work);
      void work.finally(() => {
        inFlight.delete(work);
        if (!stopped) void tick();
      });
    }
    return claimed.length;
  }

  /** One fill at a time per process; a tick asked for meanwhile runs right after. */
  async function tick(): Promise<number> {
    if (ticking !== undefined) {
      tickAgain = true;
      return ticking;
    }
    ticking = (async () => {
      let started = 0;
      try {
        do {
          tickAgain = false;
          started += await fill();
        } while (tickAgain);
      } catch (error) {
        logger.warn({ err: error }, 'webhook delivery pass failed; retrying at the next poll');
      } finally {
        ticking = undefined;
      }
      return started;
    })();
    return ticking;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void tick().finally(schedule);
    }, pollMs);
    timer.unref();
  }

  return {
    async drain() {
      const outcomes: DeliveryOutcome[] = [];
      for (;;) {
        const started = await tick();
        const running = [...inFlight];
        if (started === 0 && running.length === 0) return outcomes;
        const settled = await Promise.all(running);
        for (const outcome of settled) if (outcome !== undefined) outcomes.push(outcome);
      }
    },
    start() {
      if (!stopped) return;
      stopped = false;
      void tick().finally(schedule);
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await ticking;
      await Promise.all([...inFlight]);
    },
    observe(listener) {
      listeners.push(listener);
    },
  };
}
