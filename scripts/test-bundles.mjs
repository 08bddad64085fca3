// The test files as the test processes load them: each bundled by esbuild into one JavaScript file
// under dist/bundles/ (its helpers and other TypeScript inside), importing the service from dist/ (the
// JavaScript the build compiled from src/, which production runs) and packages from node_modules.
// Why: a test process that loads TypeScript through a loader spends about 2 s of CPU more on its
// start than one that loads JavaScript (Node 20 has no type stripping: tsx's hooks see every
// module), and the suite starts some 500 of them. Coverage still lands on src/: dist/ carries
// inline source maps. A test that spawns TypeScript itself passes `--import tsx` to its child.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';

const ROOT = process.cwd();
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
const BUNDLES = join(DIST, 'bundles');

/** dist/bundles/test/<file>.mjs for test/<file>.ts */
const bundleOf = (file) => join(BUNDLES, relative(ROOT, file).replace(/\.ts$/, '.mjs'));
/** test/<file>.ts where a path or a location (`…:line:column`) names a bundle: reports name the source */
export const sourceOf = (where) => where.replace(`${ROOT}/`, '').replace(/^dist\/bundles\/(.*)\.mjs/, '$1.ts');

const plugin = {
  name: 'lending-tests',
  setup(b) {
    // the service's modules come from dist/ (compiled by the build), never bundled: one instance
    // of each per process, as the test's imports and the service's own imports meet there
    b.onResolve({ filter: /\.ts$/ }, (args) => {
      if (args.kind === 'entry-point' || !args.path.startsWith('.')) return undefined;
      const target = resolve(args.resolveDir, args.path);
      if (!target.startsWith(`${SRC}/`)) return undefined;
      const js = join(DIST, relative(SRC, target)).replace(/\.ts$/, '.js');
      return { path: pathToFileURL(js).href, external: true };
    });
    // a bundled file's import.meta names the file it was written in (fixtures, docs and migrations
    // are found relative to it), not the bundle
    b.onLoad({ filter: /\.tsx?$/ }, async (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = await readFile(args.path, 'utf8');
      return {
        contents: text
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
          .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
          .replaceAll('import.meta.filename', JSON.stringify(args.path)),
        loader: args.path.endsWith('x') ? 'tsx' : 'ts',
      };
    });
  },
};

/** Bundles the test files given (paths relative to the root, test/…) into dist/bundles/. */
export async function bundleTests(files) {
  if (!existsSync(join(DIST, 'http/app.js'))) throw new Error('dist/ is not built: run npm run build first');
  rmSync(BUNDLES, { recursive: true, force: true });
  mkdirSync(BUNDLES, { recursive: true });
  await build({
    entryPoints: files.map((f) => join(ROOT, f)),
    outbase: ROOT,
    outdir: BUNDLES,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    logLevel: 'warning',
    plugins: [plugin],
  });
  return files.map((f) => bundleOf(join(ROOT, f)));
}
