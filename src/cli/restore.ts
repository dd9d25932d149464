// cli restore --from FILE: a backup archive into a fresh DATA_DIR (or over an old one with --force).
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import Sqlite from 'better-sqlite3';
import {
  ARCHIVE_FORMAT,
  DATABASE_FILE,
  MANIFEST,
  SECRET_FILE,
  STORAGE_DIR,
  singleMachineFiles,
  tar,
} from './archive.js';
import type { Manifest } from './archive.js';
import { printResult, progress, required, UsageError } from './command.js';
import type { Command } from './command.js';

/** rename, or copy and remove when DATABASE_URL puts the database on another filesystem than DATA_DIR. */
async function move(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFile(from, to);
    await rm(from);
  }
}

/**
 * What counts as "not empty". secret.key alone does not: loading the configuration generates one into an empty
 * DATA_DIR, and the archive's secret replaces it.
 */
async function existingData(dataDir: string, databaseFile: string): Promise<string[]> {
  const found = existsSync(dataDir)
    ? (await readdir(dataDir)).filter((name) => name !== SECRET_FILE).map((name) => join(dataDir, name))
    : [];
  if (existsSync(databaseFile) && !found.includes(databaseFile)) found.push(databaseFile);
  return found;
}

async function readManifest(directory: string): Promise<Manifest> {
  let manifest: Partial<Manifest>;
  try {
    manifest = JSON.parse(await readFile(join(directory, MANIFEST), 'utf8')) as Partial<Manifest>;
  } catch {
    throw new Error(`Not a backup made by \`cli backup\` (no readable ${MANIFEST})`);
  }
  if (manifest.format !== ARCHIVE_FORMAT)
    throw new Error(`Unsupported backup format ${String(manifest.format)}`);
  if (!existsSync(join(directory, DATABASE_FILE))) throw new Error(`The backup has no ${DATABASE_FILE}`);
  return manifest as Manifest;
}

/** The restored database must open, pass SQLite's integrity check and hold the rows the manifest counted. */
function verifyDatabase(file: string, manifest: Manifest): void {
  const db = new Sqlite(file, { readonly: true, fileMustExist: true });
  try {
    const check = db.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw new Error(`The restored database fails its integrity check: ${String(check)}`);
    for (const [table, rows] of Object.entries(manifest.tables)) {
      const actual = db.prepare(`select count(*) from "${table}"`).pluck().get() as number;
      if (actual !== rows) throw new Error(`Table ${table} has ${actual} rows; the backup recorded ${rows}`);
    }
  } finally {
    db.close();
  }
}

export const restoreCommand: Command = {
  name: 'restore',
  summary: 'Restore a `cli backup` archive into an empty DATA_DIR (stop the server first)',
  help: `Usage: cli restore --from FILE [--force]

Restores the database, DATA_DIR/storage and DATA_DIR/secret.key from an archive written by \`cli backup\`,
checks the database's integrity and row counts, and prints {restored, createdAt, tables}. Stop the server
of that DATA_DIR first, and start it after.

  --from FILE     the archive
  --force         replace an existing database and storage in DATA_DIR (refused otherwise)`,
  options: { from: { type: 'string' }, force: { type: 'boolean' } },
  async run({ values, config }) {
    const source = resolve(required(values, 'from'));
    if (!existsSync(source)) throw new UsageError(`${source} does not exist`);
    const { databaseFile, storageDir } = singleMachineFiles(config);
    const existing = await existingData(config.dataDir, databaseFile);
    if (existing.length > 0 && values['force'] !== true) {
      throw new Error(
        `${config.dataDir} is not empty (${existing[0]}); restore into an empty DATA_DIR or add --force`,
      );
    }
    await mkdir(config.dataDir, { recursive: true });
    // Unpacked inside DATA_DIR, so moving the parts into place is a rename on one filesystem.
    const staging = join(config.dataDir, `.restore-${randomUUID()}`);
    await mkdir(staging);
    try {
      progress(`Unpacking ${source}…`);
      await tar(['--extract', '--file', source, '--directory', staging, '--no-same-owner']);
      const manifest = await readManifest(staging);
      progress(`Checking the database (${Object.keys(manifest.tables).length} tables)…`);
      verifyDatabase(join(staging, DATABASE_FILE), manifest);
      progress('Moving the database and storage into place…');
      for (const suffix of ['', '-wal', '-shm']) await rm(`${databaseFile}${suffix}`, { force: true });
      await rm(storageDir, { recursive: true, force: true });
      await mkdir(dirname(databaseFile), { recursive: true });
      await move(join(staging, DATABASE_FILE), databaseFile);
      if (existsSync(join(staging, STORAGE_DIR))) await rename(join(staging, STORAGE_DIR), storageDir);
      if (existsSync(join(staging, SECRET_FILE))) {
        await rename(join(staging, SECRET_FILE), join(config.dataDir, SECRET_FILE));
      }
      printResult({ restored: config.dataDir, createdAt: manifest.createdAt, tables: manifest.tables });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  },
};
