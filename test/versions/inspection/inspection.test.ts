// Inspection at upload (spec/extensions.md §2.3) through the real upload route: refused archives leave no object
// and no row; accepted ones show format, counts, manifest and warnings on the file object.
import { Readable } from 'node:stream';
import { createDeflateRaw } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { expectError, multipart } from '../../helpers/http.js';
import { createResourceCast, resourceFor } from '../../resources/helpers.js';
import type { ResourceCast } from '../../resources/helpers.js';
import { createVersion, uploadFile, versionUrl } from '../helpers.js';
import { buildZip, endRecords, hytaleManifest, pluginJar } from './zip-builder.js';
import type { RawEntry } from './zip-builder.js';

let t: TestApp;
let cast: ResourceCast;
let resourceId: string;

beforeAll(async () => {
  t = await buildTestApp({ MAX_FILE_MB: '200' });
  cast = await createResourceCast(t.app);
  resourceId = (await resourceFor(t.app, cast, 'USER', 'APPROVED')).id;
});
afterAll(async () => t.close());

const MiB = 1024 * 1024;

interface Inspection {
  format: string;
  entries: number;
  uncompressedSize: number;
  manifest: Record<string, unknown> | null;
  warnings: string[];
}

async function upload(data: Buffer, name = 'plugin.jar') {
  const version = await createVersion(t.app, cast.owner, resourceId);
  const form = await multipart('file', { data, name });
  const response = await t.app.inject({
    method: 'POST',
    url: `${versionUrl(resourceId, version.id)}/files`,
    headers: { ...cast.owner.headers, ...form.headers },
    payload: form.payload,
  });
  return { response, versionId: version.id };
}

async function inspectionOf(data: Buffer, name = 'plugin.jar'): Promise<Inspection> {
  const version = await createVersion(t.app, cast.owner, resourceId);
  const file = await uploadFile(t.app, cast.owner, resourceId, version.id, { data, name });
  return (file as unknown as { inspection: Inspection }).inspection;
}

/** Refused with UNSAFE_ARCHIVE and `reason`; nothing of the upload remains in storage or the database. */
async function expectRefused(data: Buffer, reason: string, name = 'plugin.jar') {
  const { response, versionId } = await upload(data, name);
  const body = expectError(response, 400, 'UNSAFE_ARCHIVE');
  expect(body.details).toMatchObject({ reason });
  const rows = await t.app.context.database.db
    .selectFrom('version_files')
    .select('id')
    .where('version_id', '=', versionId)
    .execute();
  expect(rows).toEqual([]);
  const objects: string[] = [];
  for await (const page of t.app.context.storage.list({
    prefix: `files/${resourceId}/${versionId}/`,
    pageSize: 100,
  })) {
    objects.push(...page.map((object) => object.key));
  }
  expect(objects).toEqual([]);
  return body;
}

/** `size` zero bytes, DEFLATEd as a stream (the input is never held whole). */
async function deflatedZeros(size: number): Promise<Buffer> {
  const chunk = Buffer.alloc(MiB);
  const source = Readable.from(
    (function* () {
      for (let left = size; left > 0; left -= MiB) yield left >= MiB ? chunk : chunk.subarray(0, left);
    })(),
  );
  const parts: Buffer[] = [];
  for await (const part of source.pipe(createDeflateRaw({ level: 9 }))) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

describe('files that are not archives', () => {
  it('are format "other" with no entries and their own size', async () => {
    const data = Buffer.from('just text\n');
    expect(await inspectionOf(data, 'readme.txt')).toEqual({
      format: 'other',
      entries: 0,
      uncompressedSize: data.length,
      manifest: null,
      warnings: [],
    });
  });
});

describe('the Hytale plugin manifest', () => {
  it('maps the documented manifest of a plugin JAR and lists both kinds of dependencies', async () => {
    const inspection = await inspectionOf(pluginJar());
    expect(inspection).toEqual({
      format: 'hytale-plugin',
      entries: 3,
      uncompressedSize: expect.any(Number) as number,
      manifest: {
        name: 'ExamplePlugin',
        version: '1.2.3',
        group: 'com.example',
        description: 'A sample plugin',
        authors: ['Ada', 'Grace'],
        dependencies: [
          { name: 'Hytale:SomePlugin', versionRange: '>=1.0.0', optional: false },
          { name: 'Hytale:OptionalPlugin', versionRange: '*', optional: true },
        ],
        serverVersion: '>=0.0.1',
      },
      warnings: [],
    });
    expect(inspection.uncompressedSize).toBe(23 + hytaleManifest().length + 4);
  });

  it('reads keys case-insensitively, accepts a byte order mark and ignores malformed values', async () => {
    const manifest = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(
        JSON.stringify({
          nAmE: '  Lowercase  ',
          VERSION: '2.0',
          group: 42,
          Authors: 'not a list',
          dependencies: { 'A:B': 7, '': '1.0' },
          optionaldependencies: ['not', 'a', 'map'],
          serverversion: '1.0',
        }),
      ),
    ]);
    const inspection = await inspectionOf(buildZip([{ name: 'manifest.json', data: manifest }]), 'p.zip');
    expect(inspection.format).toBe('hytale-plugin');
    expect(inspection.manifest).toEqual({
      name: 'Lowercase',
      version: '2.0',
      group: null,
      description: null,
      authors: [],
      dependencies: [{ name: 'A:B', versionRange: null, optional: false }],
      serverVersion: '1.0',
    });
  });

  it.each([
    ['not JSON', Buffer.from('{"Name": ')],
    ['a JSON array', Buffer.from('[{"Name": "x"}]')],
    ['without a Name', hytaleManifest({ Name: undefined })],
    ['with an empty Name', hytaleManifest({ Name: '   ' })],
    ['with a Name that is not a string', hytaleManifest({ Name: { first: 'x' } })],
  ])('a manifest %s is MANIFEST_INVALID and the file a plain archive', async (_case, manifest) => {
    const inspection = await inspectionOf(pluginJar(manifest));
    expect(inspection).toMatchObject({ format: 'archive', entries: 3, manifest: null });
    expect(inspection.warnings).toEqual(['MANIFEST_INVALID']);
  });

  it('a manifest over 1 MiB (declared, or when inflated despite a small declared size) is MANIFEST_INVALID', async () => {
    const big = Buffer.concat([
      Buffer.from('{"Name":"x","Description":"'),
      Buffer.alloc(MiB, 0x61),
      Buffer.from('"}'),
    ]);
    for (const entry of [
      { name: 'manifest.json', data: big, deflate: true },
      { name: 'manifest.json', data: big, deflate: true, declaredSize: 100 },
    ] satisfies RawEntry[]) {
      const inspection = await inspectionOf(buildZip([entry]), 'p.zip');
      expect(inspection).toMatchObject({ format: 'archive', manifest: null, warnings: ['MANIFEST_INVALID'] });
    }
  });

  it('a manifest with corrupt compressed data or an encrypted one is MANIFEST_INVALID', async () => {
    const corrupt = buildZip([
      { name: 'manifest.json', rawCompressed: Buffer.from([0xff, 0xff, 0xff, 0xff]) },
    ]);
    expect((await inspectionOf(corrupt, 'p.zip')).warnings).toEqual(['MANIFEST_INVALID']);
    const encrypted = buildZip([{ name: 'manifest.json', data: hytaleManifest(), flags: 1 }]);
    expect((await inspectionOf(encrypted, 'p.zip')).warnings).toEqual([
      'ENCRYPTED_ENTRY',
      'MANIFEST_INVALID',
    ]);
  });

  it('only a manifest at the root counts', async () => {
    const inspection = await inspectionOf(
      buildZip([{ name: 'assets/manifest.json', data: hytaleManifest() }]),
    );
    expect(inspection).toMatchObject({ format: 'archive', manifest: null, warnings: [] });
  });
});

describe('warnings', () => {
  it('flags nested archives, native executables, symbolic links and duplicate names once each', async () => {
    const inspection = await inspectionOf(
      pluginJar(hytaleManifest(), [
        { name: 'libs/inner.jar', data: Buffer.from('x') },
        { name: 'libs/other.ZIP', data: Buffer.from('x') },
        { name: 'natives/win/helper.dll', data: Buffer.from('x') },
        { name: 'natives/linux/libhelper.so.1.2', data: Buffer.from('x') },
        { name: 'natives/mac/libhelper.dylib', data: Buffer.from('x') },
        { name: 'bin/tool.exe', data: Buffer.from('x') },
        { name: 'link', data: Buffer.from('/etc/passwd'), unixMode: 0o120777 },
        { name: 'com/example/ExamplePlugin.class', data: Buffer.from('y') },
      ]),
    );
    expect(inspection.format).toBe('hytale-plugin');
    expect(inspection.entries).toBe(11);
    expect([...inspection.warnings].sort()).toEqual(
      ['DUPLICATE_ENTRY', 'NATIVE_EXECUTABLE', 'NESTED_ARCHIVE', 'SYMBOLIC_LINK'].sort(),
    );
  });

  it('raises none for an ordinary archive, nor for directory entries named like files', async () => {
    const inspection = await inspectionOf(
      buildZip([{ name: 'folder.jar/' }, { name: 'docs/readme.txt', data: Buffer.from('hi') }]),
      'docs.zip',
    );
    expect(inspection).toEqual({
      format: 'archive',
      entries: 2,
      uncompressedSize: 2,
      manifest: null,
      warnings: [],
    });
  });

  it('finds duplicates among long names too (remembered by digest), and not between different ones', async () => {
    const long = `deep/${'x'.repeat(300)}`;
    const same = buildZip([{ name: long }, { name: `${long}y` }, { name: long }]);
    expect((await inspectionOf(same, 'long.zip')).warnings).toEqual(['DUPLICATE_ENTRY']);
    const different = buildZip([{ name: long }, { name: `${long}y` }]);
    expect((await inspectionOf(different, 'long.zip')).warnings).toEqual([]);
  });

  it('an empty archive is an archive of no entries', async () => {
    const empty = endRecords(0, 0, 0);
    expect(await inspectionOf(empty, 'empty.zip')).toMatchObject({
      format: 'archive',
      entries: 0,
      warnings: [],
    });
  });
});

describe('unsafe names', () => {
  it.each([
    ['../evil.class', 'PARENT_SEGMENT'],
    ['a/../../evil', 'PARENT_SEGMENT'],
    ['a\\..\\..\\evil', 'PARENT_SEGMENT'],
    ['..\\evil', 'PARENT_SEGMENT'],
    ['a/..', 'PARENT_SEGMENT'],
    ['/abs/evil', 'ABSOLUTE_PATH'],
    ['\\abs\\evil', 'ABSOLUTE_PATH'],
    ['\\\\server\\share\\evil', 'ABSOLUTE_PATH'],
    ['C:\\x', 'DRIVE_LETTER'],
    ['c:x', 'DRIVE_LETTER'],
    ['a/.. ./evil', 'DOT_SEGMENT'],
    ['a/.../evil', 'DOT_SEGMENT'],
    ['ok.txt\0../../evil', 'NUL_CHARACTER'],
  ])('%j is refused (%s)', async (name, reason) => {
    const archive = buildZip([
      { name: 'fine.txt', data: Buffer.from('x') },
      { name, data: Buffer.from('x') },
    ]);
    const body = await expectRefused(archive, reason);
    expect(body.details).toMatchObject({ entry: name });
  });

  it('a safe name with an unsafe Unicode Path extra name is refused too', async () => {
    const archive = buildZip([{ name: 'safe.txt', unicodeName: '../../evil.txt', data: Buffer.from('x') }]);
    await expectRefused(archive, 'PARENT_SEGMENT');
  });

  it('names that only look suspicious are accepted', async () => {
    const archive = buildZip(
      ['a..b/c', '..hidden', 'x/..y', 'dir/file..txt', 'ünïcødé/名前.txt', 'x/a:b'].map((name) => ({
        name,
        data: Buffer.from('x'),
      })),
    );
    expect((await inspectionOf(archive, 'ok.zip')).entries).toBe(6);
  });
});

describe('sizes and counts', () => {
  it('over 2 GiB of declared content is refused', async () => {
    const archive = buildZip([
      { name: 'a.bin', data: Buffer.from('x'), declaredSize: 1024 * MiB },
      { name: 'b.bin', data: Buffer.from('x'), declaredSize: 1024 * MiB + 1 },
    ]);
    await expectRefused(archive, 'TOO_LARGE');
  });

  it('exactly 2 GiB at a modest ratio is accepted', async () => {
    // 2 GiB declared over a 21 MiB+ archive: ratio under 100.
    const archive = buildZip([{ name: 'a.bin', data: Buffer.alloc(22 * MiB), declaredSize: 2048 * MiB }]);
    expect((await inspectionOf(archive, 'big.zip')).uncompressedSize).toBe(2048 * MiB);
  });

  it('150 MiB of zeros deflated (a ratio of about 1000:1) is refused', async () => {
    const zeros = await deflatedZeros(150 * MiB);
    const archive = buildZip([{ name: 'zeros.bin', rawCompressed: zeros, declaredSize: 150 * MiB }]);
    const body = await expectRefused(archive, 'COMPRESSION_RATIO', 'zeros.zip');
    expect((body.details as { ratio: number }).ratio).toBeGreaterThan(100);
  });

  it('a high ratio under 100 MiB uncompressed, or over 100 MiB at 100:1 or less, is accepted', async () => {
    const small = buildZip([{ name: 'zeros.bin', data: Buffer.alloc(10), declaredSize: 100 * MiB }]);
    expect((await inspectionOf(small, 'small.zip')).uncompressedSize).toBe(100 * MiB);
    const modest = buildZip([{ name: 'a.bin', data: Buffer.alloc(2 * MiB), declaredSize: 200 * MiB }]);
    expect((await inspectionOf(modest, 'modest.zip')).uncompressedSize).toBe(200 * MiB);
  });

  it('100,001 entries are refused (ZIP64 end records), 100,000 accepted', async () => {
    const entries = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ name: `e/${index.toString(36)}` }));
    await expectRefused(buildZip(entries(100_001)), 'TOO_MANY_ENTRIES', 'many.zip');
    const accepted = await inspectionOf(buildZip(entries(100_000)), 'many.zip');
    expect(accepted).toMatchObject({ format: 'archive', entries: 100_000 });
  }, 60_000);

  it('the count is refused from the end record before the directory is read', async () => {
    // The end record claims 100,001 entries over a directory of garbage: a reader of the directory would call
    // this corrupt, the count check calls it too many.
    const garbage = Buffer.alloc(64, 0x41);
    const archive = Buffer.concat([
      Buffer.from([0x50, 0x4b, 0x03, 0x04]),
      garbage,
      endRecords(100_001, garbage.length, 4),
    ]);
    const body = await expectRefused(archive, 'TOO_MANY_ENTRIES', 'lie.zip');
    expect(body.details).toMatchObject({ entries: 100_001, limit: 100_000 });
  });
});

describe('corrupt archives', () => {
  it.each([
    ['a truncated archive (no end record)', pluginJar().subarray(0, 60)],
    [
      'an end record pointing outside the file',
      Buffer.concat([Buffer.from('PK\x03\x04'), endRecords(1, 46, 1000)]),
    ],
    [
      'an end record whose directory holds local headers',
      Buffer.concat([pluginJar().subarray(0, -22), endRecords(3, 46, 0)]),
    ],
    [
      'a directory that is not one',
      Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(46, 0x42), endRecords(1, 46, 4)]),
    ],
  ])('%s is refused as CORRUPT_ARCHIVE', async (_case, data) => {
    await expectRefused(data, 'CORRUPT_ARCHIVE');
  });
});
