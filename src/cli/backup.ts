// cli backup --to FILE: an online backup of a single-machine instance (SQLite + DATA_DIR/storage) into one archive.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import Sqlite from 'better-sqlite3';
import {
  DATABASE_FILE,
  MANIFEST,
  SECRET_FILE,
  STORAGE_DIR,
  singleMachineFiles,
  tar,
  ARCHIVE_FORMAT,
} from './archive.js';
import type { Manifest } from './archive.js';
import { printResult, progress, required, UsageError } from './command.js';
import type { Command } from './command.js';

const MIB = 1024 * 1024;

/**
 * A consistent copy of a live database: VACUUM INTO reads one snapshot inside a read transaction while the app
 * keeps writing to the WAL. Copying the file is not a backup (a copy of a live WAL database was seen to lose
 * every table). Returns the row count of every table in the snapshot.
 */
function snapshotDatabase(source: string, target: string): Record<string, number> {
  const db = new Sqlite(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
  const copy = new Sqlite(target, { readonly: true });
  try {
    const tables = copy
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
      )
      .pluck()
      .all() as string[];
    return Object.fromEntries(
      tables.map((table) => [table, copy.prepare(`select count(*) from "${table}"`).pluck().get() as number]),
    );
  } finally {
    copy.close();
  }
}

export const backupCommand: Command = {
  name: 'backup',
  summary: 'Back up a single-machine instance (SQLite + local storage) into one archive, while it runs',
  help: `Usage: cli backup --to FILE

Writes one tar archive holding a consistent snapshot of the SQLite database (taken with VACUUM INTO, safe
while the server runs and writes), DATA_DIR/secret.key when there is one, and DATA_DIR/storage. Restore it
with \`cli restore --from FILE\`. The archive holds the signing secret: keep it as private as the data.

PostgreSQL and S3 deployments are not backed up by this command: use pg_dump and bucket versioning
(docs/deploy.md, "Backups").

  --to FILE       the archive to write (must not exist)`,
  options: { to: { type: 'string' } },
  async run({ values, config }) {
    const target = resolve(required(values, 'to'));
    if (existsSync(target)) throw new UsageError(`${target} exists already; choose a new file`);
    const { databaseFile, storageDir } = singleMachineFiles(config);
    if (!existsSync(databaseFile)) throw new Error(`No database at ${databaseFile}`);
    // Staged beside the archive, so the final rename never crosses a filesystem.
    const staging = join(dirname(target), `.backup-${randomUUID()}`);
    await mkdir(staging, { recursive: true });
    try {
      progress(`Snapshotting the database ${databaseFile}…`);
      const tables = snapshotDatabase(databaseFile, join(staging, DATABASE_FILE));
      const size = (await stat(join(staging, DATABASE_FILE))).size;
      progress(`Database: ${Object.keys(tables).length} tables, ${(size / MIB).toFixed(1)} MiB`);
      const manifest: Manifest = { format: ARCHIVE_FORMAT, createdAt: new Date().toISOString(), tables };
      await writeFile(join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
      const members = [MANIFEST, DATABASE_FILE];
      if (existsSync(join(config.dataDir, SECRET_FILE))) {
        await copyFile(join(config.dataDir, SECRET_FILE), join(staging, SECRET_FILE));
        members.push(SECRET_FILE);
      }
      progress(`Archiving ${storageDir}…`);
      await mkdir(storageDir, { recursive: true });
      const partial = `${target}.partial`;
      // Files a put is still writing (.<name>.<uuid>.tmp) are not objects yet; skip them.
      await tar(
        [
          '--create',
          '--file',
          partial,
          '--directory',
          staging,
          ...members,
          '--directory',
          dirname(storageDir),
          '--exclude=.*.tmp',
          '--warning=no-file-removed',
          '--warning=no-file-changed',
          STORAGE_DIR,
        ],
        { liveTree: true },
      );
      await rename(partial, target);
      const archiveSize = (await stat(target)).size;
      progress(`Wrote ${target} (${(archiveSize / MIB).toFixed(1)} MiB)`);
      printResult({ backup: target, bytes: archiveSize, tables });
    } finally {
      await rm(staging, { recursive: true, force: true });
      await rm(`${target}.partial`, { force: true });
    }
  },
};
