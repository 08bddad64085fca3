// At most config.publicRateLimitPerMinute requests a minute per client address (0: no limit) on
// the public routes registered in its scope: the upload links, login, set-password and leads. A
// token or a password is guessed by trying; this bounds the tries (addressLimit.ts counts).
import fp from 'fastify-plugin';
import type { App } from '../types.ts';
import { limitPerAddress } from './addressLimit.ts';
import { addressGroup } from '../addresses.ts';

export default fp(
  async (app: App) =>
    limitPerAddress(app, {
      max: app.config.publicRateLimitPerMinute,
      windowMs: 60_000,
      message: (max, seconds) => `too many requests from this address: at most ${max} a minute; retry in ${seconds} s`,
      example: { max: 60, seconds: 12 },
      // an IPv6 address by its /64, an IPv4-mapped one as IPv4 (addresses.ts)
      key: (req) => addressGroup(req.ip),
    }),
  { name: 'public-rate-limit' },
);
