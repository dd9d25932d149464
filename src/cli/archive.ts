// The backup archive (`cli backup` / `cli restore`): a plain tar, read and written by the system's GNU tar (always
// present on Debian), holding
//   backup.json      what this is: {format, createdAt, database, tables: {name: rows}}
//   marketplace.db   a consistent snapshot of the SQLite database (VACUUM INTO, safe while the app writes)
//   secret.key       the generated SECRET, when DATA_DIR holds one (signed download links stay valid)
//   storage/         DATA_DIR/storage as it was after the snapshot
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Config } from '../config.js';

export const ARCHIVE_FORMAT = 'marketplace-backup/1';
export const MANIFEST = 'backup.json';
export const DATABASE_FILE = 'marketplace.db';
export const SECRET_FILE = 'secret.key';
export const STORAGE_DIR = 'storage';

export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  createdAt: string;
  tables: Record<string, number>;
}

const run = promisify(execFile);

/**
 * Runs GNU tar; a failure becomes one line naming what tar said. With `liveTree`, exit status 1 is success: GNU tar
 * says 1 when a file or directory changed while it was read ("file changed as we read it"), which in a storage
 * folder the app is writing to only means a new object appeared beside the ones archived; objects themselves
 * never change in place (they are renamed in whole).
 */
export async function tar(args: string[], { liveTree = false }: { liveTree?: boolean } = {}): Promise<void> {
  try {
    await run('tar', args, { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    if (liveTree && (error as { code?: unknown }).code === 1) return;
    const stderr = (error as { stderr?: string }).stderr?.trim().split('\n').at(-1);
    throw new Error(`tar failed: ${stderr || (error instanceof Error ? error.message : String(error))}`);
  }
}

/**
 * The SQLite file the configuration names, as openDatabase resolves it. Backup and restore are for the
 * single-machine mode only: PostgreSQL and S3 have their own, better tools (docs/deploy.md "Backups").
 */
export function singleMachineFiles(config: Config): { databaseFile: string; storageDir: string } {
  const url = config.databaseUrl;
  if (config.storage !== 'local' || (url !== undefined && !url.startsWith('sqlite:'))) {
    throw new Error(
      'cli backup/restore cover SQLite with local storage only; back up PostgreSQL with pg_dump and S3 with ' +
        'bucket versioning or replication (see docs/deploy.md, "Backups")',
    );
  }
  if (url === ':memory:') throw new Error('An in-memory database cannot be backed up');
  return {
    databaseFile: url === undefined ? join(config.dataDir, 'marketplace.db') : url.slice('sqlite:'.length),
    storageDir: join(config.dataDir, STORAGE_DIR),
  };
}
