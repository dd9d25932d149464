// A version's `dependencies`, the dependents list and the dependency tree (spec/extensions.md §2.2).
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { HttpUrl, Id, Limit, Nullable, Offset, StringEnum, named, ref } from '../../../core/http/schemas.js';
import { ResourceSummary } from '../../resources/resources.schemas.js';

export const DEPENDENCY_TYPES = ['REQUIRED', 'OPTIONAL', 'INCOMPATIBLE', 'EMBEDDED'] as const;
export type DependencyType = (typeof DEPENDENCY_TYPES)[number];
export const MAX_DEPENDENCIES = 50;
export const MAX_TREE_DEPTH = 10;

const DependencyTypeSchema = StringEnum(DEPENDENCY_TYPES, {
  description:
    'REQUIRED must be installed; OPTIONAL adds features; INCOMPATIBLE must not be installed alongside; ' +
    'EMBEDDED is shipped inside this version',
});
const MinVersion = Type.String({
  minLength: 1,
  maxLength: 50,
  description: 'The lowest version of the target that works (free text, compared by launchers)',
});
const ExternalName = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });

export const VersionDependency = named(
  'VersionDependency',
  Type.Object({
    id: Id,
    type: DependencyTypeSchema,
    resourceId: Nullable(Id),
    versionId: Nullable(Id),
    externalName: Nullable(Type.String()),
    externalUrl: Nullable(HttpUrl),
    minVersion: Nullable(Type.String()),
    // The target resource (the implied one for a versionId target) while it is APPROVED; null for external
    // targets, deleted targets and targets not publicly visible.
    resource: Nullable(ref(ResourceSummary)),
  }),
);
export type VersionDependencyView = Static<typeof VersionDependency>;

export const DependencyInput = Type.Object(
  {
    type: DependencyTypeSchema,
    resourceId: Type.Optional(Id),
    versionId: Type.Optional(Id),
    externalName: Type.Optional(ExternalName),
    externalUrl: Type.Optional(HttpUrl),
    minVersion: Type.Optional(MinVersion),
  },
  {
    additionalProperties: false,
    description:
      'Exactly one of resourceId (any version of it), versionId (that version) or externalName (content ' +
      'hosted elsewhere, with an optional externalUrl). The target must exist and be visible to the caller, ' +
      "and must not be this version's own resource.",
  },
);
export type DependencyInputBody = Static<typeof DependencyInput>;

export const DependencyList = Type.Array(DependencyInput, {
  maxItems: MAX_DEPENDENCIES,
  description:
    `At most ${MAX_DEPENDENCIES}; each internal target resource at most once (a resource and one of its ` +
    'versions count as the same target). On PATCH the list replaces the current one; [] removes them all.',
});

export const DependentsQuery = Type.Object({
  type: Type.Optional(DependencyTypeSchema),
  limit: Type.Optional(Limit()),
  offset: Type.Optional(Offset),
});

export const DependentsList = Type.Object({
  resources: Type.Array(
    Type.Object({
      ...ResourceSummary.properties,
      dependencyType: DependencyTypeSchema,
      viaVersionId: Type.String({ description: "The dependent resource's newest APPROVED version" }),
    }),
  ),
  total: Type.Integer(),
});

export const TreeQuery = Type.Object({
  versionId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'A publicly visible version of the resource; default its newest APPROVED version',
    }),
  ),
});

const TreeVersion = Type.Object({
  id: Id,
  versionNumber: Type.String(),
  name: Nullable(Type.String()),
  channel: Type.String(),
});

export const TREE_MISSING_REASONS = ['EXTERNAL', 'NOT_FOUND', 'NO_APPROVED_VERSION'] as const;

export const DependencyTree = named(
  'DependencyTree',
  Type.Object({
    root: Type.Object({ resource: ref(ResourceSummary), version: TreeVersion }),
    nodes: Type.Array(
      Type.Object({
        resource: ref(ResourceSummary),
        version: TreeVersion,
        type: DependencyTypeSchema,
        depth: Type.Integer({ minimum: 1, maximum: MAX_TREE_DEPTH }),
        requiredByVersionId: Type.String({
          description: 'The version (root or node) that requires this one',
        }),
        minVersion: Nullable(Type.String()),
      }),
      { description: 'Breadth first; each resource once (the first, shallowest path wins; cycles are cut)' },
    ),
    missing: Type.Array(
      Type.Object({
        dependencyId: Id,
        requiredByVersionId: Type.String(),
        depth: Type.Integer(),
        reason: StringEnum(TREE_MISSING_REASONS, {
          description:
            'EXTERNAL: hosted elsewhere; NOT_FOUND: deleted or not publicly visible; NO_APPROVED_VERSION: the ' +
            'resource has no APPROVED version to resolve to',
        }),
        resourceId: Nullable(Type.String()),
        versionId: Nullable(Type.String()),
        externalName: Nullable(Type.String()),
        externalUrl: Nullable(Type.String()),
        minVersion: Nullable(Type.String()),
      }),
      { description: 'REQUIRED dependencies that cannot be resolved to a version in this catalogue' },
    ),
    truncated: Type.Boolean({
      description: `True when versions at depth ${MAX_TREE_DEPTH} have REQUIRED dependencies not followed`,
    }),
  }),
);
export type DependencyTreeView = Static<typeof DependencyTree>;

export const ResourceIdParams = Type.Object({ resourceId: Id });
