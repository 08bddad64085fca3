// The orphan-file sweep (src/services/files.ts, docs/files.md): once when the server starts and
// every hour, remove stored bytes no file row points at and temporary files of writes a crash
// cut short, older than the grace period. Safe alongside uploads and in several processes.
import { registerScheduler } from './scheduler.ts';
import { DirectoryStorage } from '../storage/directory.ts';
import { sweepOrphanFiles } from '../services/files.ts';

const EVERY_MS = 60 * 60 * 1000;

registerScheduler((db, config, log) => {
  const storage = new DirectoryStorage(config.filesDir);
  let running: Promise<void> | null = null;
  let stopped = false;
  const run = () => {
    if (running || stopped) return;
    running = sweepOrphanFiles({ db: db.kysely, storage, log })
      .then((r) => {
        if (r.removed || r.incomplete) log.info(r, 'file sweep removed orphan bytes');
      })
      .catch((err: unknown) => {
        if (!stopped) log.error({ err }, 'file sweep failed');
      })
      .finally(() => {
        running = null;
      });
  };
  run();
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
});
