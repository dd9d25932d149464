// The directory page cache on its own: version, expiry, bounds and keys.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { createDirectoryCache, directoryKey } from '../../src/core/http/page-cache.js';

function setup(maxEntries = 3) {
  const clock = new ManualClock();
  let version = 1;
  let renders = 0;
  const cache = createDirectoryCache({ clock, readVersion: async () => version, ttlMs: 5000, maxEntries });
  const render = (text: string) => async () => {
    renders += 1;
    return text;
  };
  return {
    clock,
    cache,
    render,
    bump: () => (version += 1),
    renders: () => renders,
  };
}

describe('createDirectoryCache', () => {
  it('renders once per key and version while fresh, with a weak ETag of the body', async () => {
    const s = setup();
    const first = await s.cache.page('a', s.render('{"n":1}'));
    const again = await s.cache.page('a', s.render('{"n":2}'));
    expect(again).toBe(first);
    expect(first.body).toBe('{"n":1}');
    expect(first.etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
    expect(s.renders()).toBe(1);
  });

  it('renders again when the directory version moved', async () => {
    const s = setup();
    await s.cache.page('a', s.render('old'));
    s.bump();
    expect((await s.cache.page('a', s.render('new'))).body).toBe('new');
    expect(s.cache.size()).toBe(1);
  });

  it('renders again once the entry is 5 seconds old', async () => {
    const s = setup();
    await s.cache.page('a', s.render('old'));
    s.clock.advance(4999);
    expect((await s.cache.page('a', s.render('new'))).body).toBe('old');
    s.clock.advance(1);
    expect((await s.cache.page('a', s.render('new'))).body).toBe('new');
  });

  it('keeps at most maxEntries pages, dropping the oldest', async () => {
    const s = setup(2);
    await s.cache.page('a', s.render('a'));
    await s.cache.page('b', s.render('b'));
    await s.cache.page('c', s.render('c'));
    expect(s.cache.size()).toBe(2);
    expect((await s.cache.page('b', s.render('b2'))).body).toBe('b');
    expect((await s.cache.page('a', s.render('a2'))).body).toBe('a2');
  });

  it('caches nothing when rendering fails', async () => {
    const s = setup();
    await expect(
      s.cache.page('a', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(s.cache.size()).toBe(0);
  });
});

describe('directoryKey', () => {
  const base = { limit: 20, offset: 0 };
  it('treats equivalent queries alike', () => {
    expect(directoryKey(base)).toBe(directoryKey({ ...base, sort: 'rank', search: '  ' }));
    expect(directoryKey({ ...base, tags: ['b', 'a', 'a'] })).toBe(
      directoryKey({ ...base, tags: ['a', 'b'] }),
    );
    expect(directoryKey({ ...base, search: ' sky' })).toBe(directoryKey({ ...base, search: 'sky' }));
    expect(directoryKey({ ...base, facets: ['tags', 'categories'] })).toBe(
      directoryKey({ ...base, facets: ['categories', 'tags', 'tags'] }),
    );
  });

  it('tells different queries apart', () => {
    const keys = [
      directoryKey(base),
      directoryKey({ ...base, sort: 'players' }),
      directoryKey({ ...base, limit: 21 }),
      directoryKey({ ...base, offset: 20 }),
      directoryKey({ ...base, search: 'sky' }),
      directoryKey({ ...base, tags: ['a'] }),
      directoryKey({ ...base, categories: ['a'] }),
      directoryKey({ ...base, search: 'a","b' }),
      // A trailing blank ends the last word: "sky " is no longer a prefix search (search/text.ts).
      directoryKey({ ...base, search: 'sky ' }),
      directoryKey({ ...base, facets: ['tags'] }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });
});
