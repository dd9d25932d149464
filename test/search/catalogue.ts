// GET /resources as the search tests read it: the answer's shape (its meta as the service builds it), and a
// helper that asserts a 200.
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import type { CatalogueMeta } from '../../src/modules/resources/resource-lists.types.js';
import type { ResourceBody } from '../resources/helpers.js';

export interface Catalogue {
  resources: ResourceBody[];
  total: number;
  meta: CatalogueMeta;
}

/** `GET /resources?<query>`, which must answer 200. */
export async function listCatalogue(t: TestApp, query: string): Promise<Catalogue> {
  const response = await t.app.inject({ method: 'GET', url: `/resources?${query}` });
  expect(response.statusCode, `${query}: ${response.body}`).toBe(200);
  return response.json() as Catalogue;
}
