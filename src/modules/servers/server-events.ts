// The servers module's entries in the event log (spec/extensions.md §1.1). Each is recorded in the transaction
// of its change, placed by the server as it is AFTER the change (so approval makes the event public).
import type { Transaction } from 'kysely';
import type { DB, ServersTable } from '../../core/db/schema.js';
import { recordEvent, serverPlacement } from '../../core/events/record.js';
import type { EventType } from '../../core/events/catalogue.js';

export type ServerEventType = Extract<EventType, `server.${string}`>;

/** The columns an event needs: placement (id, owner, status) and the summary (name, slug). */
export type ServerEventRow = Pick<
  ServersTable,
  'id' | 'name' | 'slug' | 'status' | 'owner_type' | 'owner_id'
>;

export const SERVER_EVENT_COLUMNS = ['id', 'name', 'slug', 'status', 'owner_type', 'owner_id'] as const;

/** The data of server.created, server.updated and server.deleted. */
export const serverSummary = (server: ServerEventRow) => ({
  name: server.name,
  slug: server.slug,
  status: server.status,
});

export async function recordServerEvent(
  trx: Transaction<DB>,
  type: ServerEventType,
  change: { at: string; actorId: string | null; server: ServerEventRow; data: Record<string, unknown> },
): Promise<void> {
  await recordEvent(trx, {
    type,
    at: change.at,
    actorId: change.actorId,
    subjectId: change.server.id,
    data: change.data,
    placement: serverPlacement(change.server),
  });
}

/** The editable columns under their API names, in the order server.updated lists them in `changed`. */
const EDITABLE_FIELDS = {
  name: 'name',
  short_description: 'shortDescription',
  description: 'description',
  ip: 'ip',
  port: 'port',
} as const;

export type EditableServerColumns = Partial<Pick<ServersTable, keyof typeof EDITABLE_FIELDS>>;

/** API names of the fields whose new value differs from the stored one. */
export function changedServerFields(
  current: Pick<ServersTable, keyof typeof EDITABLE_FIELDS>,
  changes: EditableServerColumns,
): string[] {
  return (Object.keys(EDITABLE_FIELDS) as Array<keyof typeof EDITABLE_FIELDS>)
    .filter((column) => changes[column] !== undefined && changes[column] !== current[column])
    .map((column) => EDITABLE_FIELDS[column]);
}
