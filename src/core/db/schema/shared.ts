// Tables several modules share.
// Row types as Kysely sees them; ../schema.ts gathers them into DB.
/** Named row counts kept in step with their tables, so list totals never count a whole table (DESIGN §5). */
export interface CountersTable {
  name: string;
  value: number;
}

export interface DescriptionImagesTable {
  id: string;
  /** 'RESOURCE' | 'SERVER' */
  owner_type: string;
  owner_id: string;
  uploader_id: string;
  storage_key: string;
  sha256: string;
  file_name: string;
  file_size: number;
  /** True until a saved description contains the image; then permanent. */
  is_temporary: boolean;
  /** Whether the owner's saved description contains the image now. */
  is_used: boolean;
  created_at: string;
}
