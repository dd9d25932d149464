// Every route the app registers, kept as a matcher over concrete paths: the 405 answer needs "which methods
// does this path have?" and the Location rule "which GET routes exist?", for routes no list names.
import type { FastifyInstance, RouteOptions } from 'fastify';

interface KnownRoute {
  methods: string[];
  pattern: RegExp;
}

export interface RouteTable {
  /** Methods registered for a concrete path (HEAD beside GET), in registration order; empty when none. */
  methodsFor(path: string): string[];
  /** True when a GET route has this pattern, parameter names aside (`/resources/:id` ~ `/resources/:slug`). */
  hasGetPattern(url: string): boolean;
  /** True when the route `METHOD url` sets its own `config.location` (location.ts). */
  hasLocationOverride(method: string, url: string): boolean;
}

/** `/resources/:id/files/*` → a regular expression over concrete paths. */
export function patternOf(url: string): RegExp {
  let source = '';
  for (const segment of url.split('/').slice(1)) {
    source += '/';
    if (segment === '*') {
      source += '.*';
    } else if (segment.startsWith(':')) {
      // `:id(^\\d+$)`: the constraint, unanchored; a plain `:id` is one segment.
      const constraint = /^:[^(]*\((.*)\)$/.exec(segment)?.[1];
      source += constraint === undefined ? '[^/]+' : `(?:${constraint.replace(/^\^|\$$/g, '')})`;
    } else {
      source += segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source || '/'}$`);
}

/** A route pattern with its parameter names dropped: `/resources/:id` → `/resources/:`. */
export function shapeOf(url: string): string {
  return url.replace(/\/$/, '').replace(/:[^/]+/g, ':');
}

export function createRouteTable(app: FastifyInstance): RouteTable {
  const routes: KnownRoute[] = [];
  const getShapes = new Set<string>();
  const overrides = new Set<string>();
  app.addHook('onRoute', (route: RouteOptions) => {
    // The catch-all `*` (CORS preflight) says nothing about which paths exist.
    if (route.url === '*' || route.url === '/*') return;
    const methods = [route.method].flat();
    routes.push({ methods, pattern: patternOf(route.url) });
    if (methods.includes('GET')) getShapes.add(shapeOf(route.url));
    if (route.config?.location !== undefined) {
      for (const method of methods) overrides.add(`${method} ${shapeOf(route.url)}`);
    }
  });
  const methodsFor = (path: string): string[] => {
    const methods = new Set<string>();
    for (const route of routes) {
      if (!route.pattern.test(path)) continue;
      for (const method of route.methods) methods.add(method);
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods];
  };
  return {
    methodsFor,
    hasGetPattern: (url) => getShapes.has(shapeOf(url)),
    hasLocationOverride: (method, url) => overrides.has(`${method} ${shapeOf(url)}`),
  };
}
