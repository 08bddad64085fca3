// Where the service is reached from outside, for the links it hands out (upload links). The Host
// header is the client's word, so it is never used: PUBLIC_URL when set; else, when the request
// came through a trusted proxy (TRUST_PROXY) that says where it was sent, the forwarded scheme and
// host; else the address the server listens on.
import { BlockList, isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

export type ProxyTrust = (address: string, hop: number) => boolean;

/** TRUST_PROXY as a function of a peer address and its hop (0: the socket's peer); Fastify's trustProxy takes the same. */
export function proxyTrust(setting: Config['trustProxy']): ProxyTrust | false {
  if (setting === null) return false;
  if (setting === true) return () => true;
  if (typeof setting === 'number') return (_a, hop) => hop < setting;
  const list = new BlockList();
  for (const entry of setting) {
    const [addr = '', bits] = entry.split('/');
    const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return (address) => {
    // an IPv4 peer on a dual-stack socket reads ::ffff:a.b.c.d
    const a = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
    return list.check(a, isIP(a) === 6 ? 'ipv6' : 'ipv4');
  };
}

/** The base URL of the address the server listens on (127.0.0.1 for all interfaces). */
export function listenBase(host: string, port: number): string {
  const h = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

/** The base URL of links handed out in answer to this request. */
export function publicBase(req: FastifyRequest, config: Config, trust: ProxyTrust | false): string {
  if (config.publicUrl) return config.publicUrl;
  const peer = req.raw.socket?.remoteAddress;
  if (trust && peer && trust(peer, 0) && req.headers['x-forwarded-host']) return `${req.protocol}://${req.host}`;
  const addr = req.server.server.address();
  return listenBase(config.host, typeof addr === 'object' && addr ? addr.port : config.port);
}
