// Writes one thread message and its moderation.message_posted event in the caller's transaction: the one path
// for typed and automatic messages alike, so every message has exactly one event.
import type { Transaction } from 'kysely';
import type { DB } from '../../../core/db/schema.js';
import {
  recordEvent,
  resourcePlacement,
  serverPlacement,
  versionPlacement,
} from '../../../core/events/record.js';
import { newId } from '../../../core/ids.js';
import { insertMessage } from './threads.repo.js';
import type { ThreadSubject, ThreadVersion } from './threads.repo.js';

export interface MessageToWrite {
  authorId: string | null;
  /** Already sanitized. */
  body: string;
  version: ThreadVersion | null;
  internal: boolean;
  automatic: boolean;
  at: string;
}

/** Inserts the message and records its event; returns the message id. */
export async function writeMessage(
  trx: Transaction<DB>,
  subject: ThreadSubject,
  message: MessageToWrite,
): Promise<string> {
  const id = newId();
  const onResource = subject.kind === 'RESOURCE';
  await insertMessage(trx, {
    id,
    resource_id: onResource ? subject.id : null,
    server_id: onResource ? null : subject.id,
    version_id: message.version?.id ?? null,
    author_id: message.authorId,
    body: message.body,
    internal: message.internal,
    automatic: message.automatic,
    created_at: message.at,
  });
  const { version } = message;
  await recordEvent(trx, {
    type: 'moderation.message_posted',
    at: message.at,
    actorId: message.authorId,
    // The subject is the version when the message is about one (spec/extensions.md §1.1).
    subjectKind: version !== null ? 'version' : onResource ? 'resource' : 'server',
    subjectId: version?.id ?? subject.id,
    data: {
      messageId: id,
      ...(onResource ? { resourceId: subject.id } : { serverId: subject.id }),
      versionId: version?.id ?? null,
      internal: message.internal,
      automatic: message.automatic,
      body: message.body,
    },
    placement: !onResource
      ? serverPlacement(subject)
      : version !== null
        ? versionPlacement(subject, version)
        : resourcePlacement(subject),
    // An internal message's event (and its body) reaches moderators only: /events, webhooks, everywhere.
    ...(message.internal ? { audience: 'MODERATORS' as const } : {}),
  });
  return id;
}
