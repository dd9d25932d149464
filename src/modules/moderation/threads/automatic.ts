// The automatic messages of moderation actions (spec/extensions.md §4): every resource, version and server
// moderation action that carries a reason or notes posts them into the subject's thread, in the transaction of
// the action. The reason is addressed to the owner side (it is also their statusReason / rejection reason), so
// it is an ordinary message; notes were always moderator-only (the moderation history), so they go into an
// internal message the owner side never sees.
import type { Transaction } from 'kysely';
import type { DB } from '../../../core/db/schema.js';
import { sanitizeMessageBody } from './message-body.js';
import { findSubject, findVersionOf } from './threads.repo.js';
import type { ThreadVersion } from './threads.repo.js';
import { writeMessage } from './write-message.js';

export interface AutomaticMessage {
  subjectKind: 'RESOURCE' | 'SERVER';
  subjectId: string;
  /** The version the action was about (version approve/reject). */
  versionId: string | null;
  /** The action as the history names it: APPROVE, REJECT, SUSPEND, UNSUSPEND (any case). */
  action: string;
  reason: string | null;
  notes: string | null;
  /** Null for an automatic action (a trusted creator's auto-approval): the message has no author. */
  moderatorId: string | null;
  at: string;
}

const DONE: Record<string, string> = {
  APPROVE: 'Approved',
  REJECT: 'Rejected',
  SUSPEND: 'Suspended',
  UNSUSPEND: 'Unsuspended',
  ARCHIVE: 'Archived',
};

const present = (text: string | null): text is string => text !== null && text.trim() !== '';

function heading(action: string, version: ThreadVersion | null): string {
  const upper = action.toUpperCase();
  const done = DONE[upper] ?? upper.charAt(0) + upper.slice(1).toLowerCase();
  return version === null ? `**${done}**` : `**${done}** (version ${version.version_number})`;
}

/** Posts the action's reason (visible) and notes (internal); does nothing when both are empty. */
export async function postAutomaticMessage(trx: Transaction<DB>, message: AutomaticMessage): Promise<void> {
  if (!present(message.reason) && !present(message.notes)) return;
  const subject = await findSubject(trx, message.subjectKind, message.subjectId);
  if (subject === undefined) return;
  const version =
    message.versionId === null || message.subjectKind !== 'RESOURCE'
      ? null
      : ((await findVersionOf(trx, subject.id, message.versionId)) ?? null);
  const title = heading(message.action, version);
  const parts: Array<{ text: string; label: string; internal: boolean }> = [];
  if (present(message.reason)) parts.push({ text: message.reason, label: 'Reason', internal: false });
  if (present(message.notes)) parts.push({ text: message.notes, label: 'Moderator notes', internal: true });
  for (const part of parts) {
    const body = sanitizeMessageBody(`${title}. ${part.label}:\n\n${part.text}`) ?? title;
    await writeMessage(trx, subject, {
      authorId: message.moderatorId,
      body,
      version,
      internal: part.internal,
      automatic: true,
      at: message.at,
    });
  }
}
