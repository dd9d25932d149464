// The teams module's entries in the event log (spec/extensions.md §1.1). The subject is always the team, which
// is public; invitation events also name the invitee, the one member of their audience outside the team.
import type { Transaction } from 'kysely';
import type { DB } from '../../core/db/schema.js';
import { recordEvent } from '../../core/events/record.js';
import type { EventType } from '../../core/events/catalogue.js';

export type TeamEventType = Extract<EventType, `team.${string}`>;

export async function recordTeamEvent(
  trx: Transaction<DB>,
  type: TeamEventType,
  change: {
    at: string;
    actorId: string;
    teamId: string;
    data: Record<string, unknown>;
    audienceUserId?: string;
  },
): Promise<void> {
  await recordEvent(trx, {
    type,
    at: change.at,
    actorId: change.actorId,
    subjectId: change.teamId,
    data: change.data,
    placement: { teamId: change.teamId, subjectPublic: true },
    ...(change.audienceUserId !== undefined ? { audienceUserId: change.audienceUserId } : {}),
  });
}
