// Moderation threads (spec/extensions.md §4): one per resource and per server, between its owner side (the
// user owner, the owning team's members, a resource's contributors — the people who edit or manage it) and
// MODERATOR+. To anyone else a thread does not exist (404, whether or not its subject is visible to them).
// Internal messages are between moderators: the owner side never reads them, here or through their events.
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import { resourceGrants } from '../../../core/auth/resource-access.js';
import type { ResourceAccess } from '../../../core/auth/resource-access.js';
import { hasRank } from '../../../core/auth/roles.js';
import type { ServerAccess } from '../../../core/auth/server-access.js';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import { lockForUpdate } from '../../../core/db/dialect.js';
import type { DB, ServerStatus } from '../../../core/db/schema.js';
import { badRequest, forbidden, notFound } from '../../../core/http/errors.js';
import { lockResource } from '../../resources/resources.repo.js';
import { serverLockKey } from '../../servers/servers.service.js';
import { sanitizeMessageBody } from './message-body.js';
import { toThreadMessage } from './threads.mapper.js';
import type { ThreadMessageView } from './threads.mapper.js';
import * as repo from './threads.repo.js';
import type { ThreadKind, ThreadVersion } from './threads.repo.js';
import { writeMessage } from './write-message.js';

export interface NewThreadMessage {
  body: string;
  versionId?: string | null | undefined;
  internal?: boolean | undefined;
}

export type ThreadsService = ReturnType<typeof createThreadsService>;

const hidden = () => notFound('Moderation thread');

export function createThreadsService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  resourceAccess: Pick<ResourceAccess, 'facts'>;
  serverAccess: Pick<ServerAccess, 'can'>;
}) {
  const { db, dialect, clock, resourceAccess, serverAccess } = deps;

  /** The thread's subject and whether the caller reads it as a moderator; 404 for anyone outside it. */
  async function join(actor: Actor, kind: ThreadKind, id: string) {
    const subject = await repo.findSubject(db, kind, id);
    if (subject === undefined) throw hidden();
    if (hasRank(actor.role, 'MODERATOR')) return { subject, moderator: true };
    const ownerSide =
      kind === 'RESOURCE'
        ? resourceGrants(await resourceAccess.facts(actor, subject), 'resource.edit')
        : await serverAccess.can(actor, 'server.manage', {
            id: subject.id,
            status: subject.status as ServerStatus,
            ownerType: subject.owner_type,
            ownerId: subject.owner_id,
          });
    if (!ownerSide) throw hidden();
    return { subject, moderator: false };
  }

  async function list(
    actor: Actor,
    kind: ThreadKind,
    id: string,
    limit: number,
    offset: number,
  ): Promise<{
    messages: ThreadMessageView[];
    total: number;
    meta: { total: number; limit: number; offset: number };
  }> {
    const { moderator } = await join(actor, kind, id);
    const page = { withInternal: moderator, limit, offset };
    const [rows, total] = await Promise.all([
      repo.listMessages(db, kind, id, page),
      repo.countMessages(db, kind, id, moderator),
    ]);
    return { messages: rows.map(toThreadMessage), total, meta: { total, limit, offset } };
  }

  async function post(
    actor: Actor,
    kind: ThreadKind,
    id: string,
    input: NewThreadMessage,
  ): Promise<ThreadMessageView> {
    const { moderator } = await join(actor, kind, id);
    const internal = input.internal === true;
    if (internal && !moderator) throw forbidden('Only moderators can post internal messages');
    const body = sanitizeMessageBody(input.body);
    if (body === null) {
      throw badRequest('The message is empty once sanitized', {
        fields: { 'body.body': 'is empty once sanitized' },
      });
    }
    const messageId = await db.transaction().execute(async (trx) => {
      // Under the subject's lock: it (and the named version) cannot go away before the message is written.
      const exists =
        kind === 'RESOURCE'
          ? await lockResource(trx, dialect, id)
          : (await lockForUpdate(trx, dialect, serverLockKey(id)), true);
      const subject = exists ? await repo.findSubject(trx, kind, id) : undefined;
      if (subject === undefined) throw hidden();
      let version: ThreadVersion | null = null;
      if (kind === 'RESOURCE' && input.versionId !== undefined && input.versionId !== null) {
        version = (await repo.findVersionOf(trx, id, input.versionId)) ?? null;
        if (version === null) {
          throw badRequest('versionId is not a version of this resource', {
            fields: { 'body.versionId': 'is not a version of this resource' },
          });
        }
      }
      return writeMessage(trx, subject, {
        authorId: actor.userId,
        body,
        version,
        internal,
        automatic: false,
        at: clock.now().toISOString(),
      });
    });
    const row = await repo.findMessage(db, messageId);
    if (row === undefined) throw hidden();
    return toThreadMessage(row);
  }

  return { list, post };
}
