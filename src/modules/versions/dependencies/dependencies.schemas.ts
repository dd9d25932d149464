// A version's `dependencies` (spec/extensions.md §2.2). Owned by the dependencies work.
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { HttpUrl, Id, Nullable, StringEnum, named } from '../../../core/http/schemas.js';

export const DEPENDENCY_TYPES = ['REQUIRED', 'OPTIONAL', 'INCOMPATIBLE', 'EMBEDDED'] as const;

export const VersionDependency = named(
  'VersionDependency',
  Type.Object({
    id: Id,
    type: StringEnum(DEPENDENCY_TYPES),
    resourceId: Nullable(Id),
    versionId: Nullable(Id),
    externalName: Nullable(Type.String()),
    externalUrl: Nullable(HttpUrl),
    minVersion: Nullable(Type.String()),
  }),
);
export type VersionDependencyView = Static<typeof VersionDependency>;
