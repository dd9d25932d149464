// The answers of the resource lists (resource-lists.service.ts) and the query of the public catalogue.
import type { ResourceType } from '../../core/db/schema.js';
import type { FacetRequest, Facets } from '../search/resource-facets.js';
import type { ResourceListItemView } from './resources.mapper.js';
import type { ResourceSort } from './resources.schemas.js';

export interface Page {
  page: number;
  limit: number;
}

export interface ResourcePage {
  resources: ResourceListItemView[];
  total: number;
  meta: { total: number; limit: number; offset: number; page: number };
}

export interface PublicListQuery extends Partial<Page> {
  type?: ResourceType;
  search?: string;
  tags?: string[];
  categories?: string[];
  versions?: string[];
  sortBy?: ResourceSort;
  facets?: FacetRequest[];
}

export interface CatalogueMeta {
  total: number;
  limit: number;
  offset: number;
  page: number;
  totalExact: boolean;
  facets?: Facets;
  facetsExact?: boolean;
  similar?: boolean;
}

export interface CataloguePage {
  resources: ResourceListItemView[];
  total: number;
  meta: CatalogueMeta;
}
