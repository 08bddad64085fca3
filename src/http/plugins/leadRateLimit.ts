// The public lead form's own limit: at most config.leadsRateLimitPerHour requests an hour per
// client address (0: no limit), besides the per-minute limit of every public route
// (publicRateLimit.ts), whose declared 429 it replaces. A person sends a form or two; a script
// filling a business's list with junk sends hundreds. An IPv6 address counts by its /64 (one
// subscriber's whole network), an IPv4-mapped one as IPv4 (addresses.ts).
import fp from 'fastify-plugin';
import type { App } from '../types.ts';
import { limitPerAddress } from './addressLimit.ts';
import { addressGroup } from '../addresses.ts';

export default fp(
  async (app: App) =>
    limitPerAddress(app, {
      max: app.config.leadsRateLimitPerHour,
      windowMs: 3_600_000,
      message: (max, seconds) => `too many leads from this address: at most ${max} an hour; retry in ${seconds} s`,
      example: { max: app.config.leadsRateLimitPerHour || 10, seconds: 1800 },
      key: (req) => addressGroup(req.ip),
    }),
  { name: 'lead-rate-limit' },
);
