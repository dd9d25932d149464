// Moderation threads and their messages (spec/extensions.md §4).
// Row types as Kysely sees them; ../schema.ts merges the tables below into DB.

/**
 * One message of a moderation thread. A thread is not a row of its own: it is the messages of one resource or
 * one server (exactly one of resource_id and server_id is set), so it exists with its subject and goes with it.
 */
export interface ModerationMessagesTable {
  /** UUIDv7. */
  id: string;
  resource_id: string | null;
  server_id: string | null;
  /** The version the message is about (resource threads only); null once that version is deleted. */
  version_id: string | null;
  /** Null for messages of automatic actions, and once the author's account is gone. */
  author_id: string | null;
  /** Sanitized like a version changelog (versions/changelog.ts). */
  body: string;
  /** Moderators only: never shown to the owner side. */
  internal: boolean | number;
  /** Posted by a moderation action (its reason or notes), not typed into the thread. */
  automatic: boolean | number;
  created_at: string;
}

/** Table name → row type, merged into DB. */
export interface ModerationThreadsTables {
  moderation_messages: ModerationMessagesTable;
}
