// Words typed joined become phrases (search/text.ts): whatever the punctuation, the number of joined words or the
// alphabet, every search endpoint answers 200 (never a 5xx from the FTS5 or tsquery syntax), on both dialects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas } from '../helpers/factories.js';
import type { Personas } from '../helpers/factories.js';
import { createResource, moderate } from '../resources/helpers.js';

let t: TestApp;
let p: Personas;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  const resource = await createResource(t.app, p.user, {
    name: 'Épée-Über A-B-C',
    shortDescription: "O'Neil's mod",
  });
  await moderate(t.app, p.moderator, resource.id, 'APPROVE');
});
afterAll(async () => t.close());

const HOSTILE = [
  'a-b-c-d-e-f-g-h-i-j-k-l',
  'a_b c-d e.f g/h i:j',
  'x_',
  '_x',
  '-',
  'a--b',
  '1.2.3',
  "o'neil's",
  'épée-über',
  '"a-b"*',
  'a-b:* & c-d:A | !e',
  '{name_text}:a-b',
  'near(a-b, 2)',
  '日本-語',
  'a-'.repeat(40),
];

describe('joined words in searches', () => {
  it('answer 200 on every search endpoint', async () => {
    const urls = (q: string) => [
      `/resources?search=${q}`,
      `/resources?search=${q}&sortBy=relevance`,
      `/resources?search=${q}&facets=tags,type`,
      `/servers?search=${q}&sort=relevance&facets=tags`,
      `/teams?search=${q}`,
    ];
    for (const text of HOSTILE) {
      const q = encodeURIComponent(text);
      for (const url of urls(q)) {
        const response = await t.app.inject({ method: 'GET', url });
        expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
      }
      for (const url of [`/users/search?q=${q}`, `/admin/users?search=${q}`]) {
        const response = await t.app.inject({ method: 'GET', url, headers: p.admin.headers });
        expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
      }
    }
  });

  it('find what was typed joined', async () => {
    for (const text of ['épée-über', 'epee_uber', 'a-b-c', 'a-b-', "o'neil's", 'über-a-b']) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/resources?search=${encodeURIComponent(text)}`,
      });
      expect(
        response.json().resources.map((r: { name: string }) => r.name),
        text,
      ).toEqual(['Épée-Über A-B-C']);
    }
  });
});
