// Resource versions, their files, download events and gallery images.
// Row types as Kysely sees them; ../schema.ts gathers them into DB.
import type { Generated } from 'kysely';

export type VersionStatusColumn = 'DRAFT' | 'PENDING' | 'APPROVED' | 'REJECTED' | 'ARCHIVED';

export interface ResourceVersionsTable {
  id: string;
  resource_id: string;
  version_number: string;
  name: string | null;
  channel: 'RELEASE' | 'BETA' | 'ALPHA' | 'SNAPSHOT';
  status: VersionStatusColumn;
  /** Sanitized HTML. */
  changelog: string | null;
  downloads: Generated<number>;
  submission_note: string | null;
  rejection_reason: string | null;
  created_at: string;
  updated_at: string;
  submitted_at: string | null;
  approved_at: string | null;
}

export interface VersionGameVersionsTable {
  version_id: string;
  game_version_id: string;
}

export interface VersionFilesTable {
  id: string;
  version_id: string;
  storage_key: string;
  file_name: string;
  display_name: string | null;
  /** bigint: PostgreSQL returns it as a string; read it through Number(). */
  file_size: number;
  file_type: string;
  content_type: string;
  sha256: string;
  sha1: string;
  /** Null for files stored before SHA-512 existed, until the backfill job has read them (§2.1). */
  sha512: string | null;
  is_primary: boolean;
  uploaded_at: string;
  /** JSON of the file object's `inspection` (§2.3); null for files stored before inspection existed. */
  inspection: string | null;
  /** The earlier file of another owner's resource with the same SHA-512 (§2.4). */
  duplicate_of_file_id: string | null;
  /** §2.4 malware scanning: NOT_SCANNED, PENDING, CLEAN, INFECTED or ERROR. */
  scan_status: Generated<FileScanStatus>;
  scan_signature: string | null;
  scanned_at: string | null;
  /** Failed attempts so far (ERROR retries with backoff). */
  scan_attempts: Generated<number>;
  /** When a PENDING or ERROR file is due for its next attempt; null: now. */
  scan_next_at: string | null;
}

export type FileScanStatus = 'NOT_SCANNED' | 'PENDING' | 'CLEAN' | 'INFECTED' | 'ERROR';

export interface DownloadEventsTable {
  id: string;
  subject_type: 'FILE' | 'VERSION';
  subject_id: string;
  version_id: string;
  client_key: string;
  day: string;
  ip: string;
  user_agent: string | null;
  user_id: string | null;
  created_at: string;
}

export interface VersionModerationEventsTable {
  id: string;
  version_id: string;
  action: string;
  from_status: VersionStatusColumn;
  to_status: VersionStatusColumn;
  reason: string | null;
  actor_id: string | null;
  /** An automatic approval (a trusted creator's clean submission, spec/extensions.md §4): actor_id is null. */
  automatic: Generated<boolean | number>;
  created_at: string;
}

export interface GalleryImagesTable {
  id: string;
  resource_id: string;
  storage_key: string;
  thumbnail_key: string;
  caption: string | null;
  alt_text: string | null;
  position: number;
  created_at: string;
  updated_at: string;
}
