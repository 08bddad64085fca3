// OPTIONS on any path of the scope says which methods it answers (Allow), 404 for a path no route
// matches. The methods are collected as routes are added, so register this before the routes;
// the OPTIONS route sits in the same scope, behind the same hooks (API key, rate limit).
import fp from 'fastify-plugin';
import { AppError } from '../../domain/errors.ts';
import type { App } from '../types.ts';
import { endsInParam } from './trailingSlash.ts';

export default fp(
  async (app: App) => {
    const routes: { method: string; pattern: RegExp }[] = [];
    app.addHook('onRoute', (route) => {
      if (route.url.includes('*')) return;
      // a trailing slash only after a parameter, as the routes themselves answer (trailingSlash.ts)
      const slash = endsInParam(route.url) ? '/?' : '';
      const pattern = new RegExp(
        `^${route.url.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}${slash}$`,
      );
      for (const m of [route.method].flat()) routes.push({ method: m, pattern });
    });

    app.options('/*', { schema: { hide: true } }, async (req, reply) => {
      const path = req.url.split('?')[0]!;
      const methods = new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method));
      if (methods.size === 0) throw new AppError('not_found', `no route ${path}`);
      methods.add('OPTIONS');
      return reply
        .status(204)
        .header('allow', [...methods].sort().join(', '))
        .send();
    });
  },
  { name: 'options-method' },
);
