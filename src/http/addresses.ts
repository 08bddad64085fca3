// The client address every per-address limit counts (sign-in failures, PUBLIC_RATE_LIMIT, the
// lead form, the API's own limit without a key): an IPv4-mapped IPv6 address (::ffff:a.b.c.d) as
// the IPv4 address it is, any other IPv6 address by its /64, the smallest network one subscriber
// is given (they pick any of its 2^64 addresses at will), and IPv4 as it is.
import ipaddr from 'ipaddr.js';

export function addressGroup(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip.toLowerCase();
  const a = ipaddr.process(ip);
  if (a.kind() === 'ipv4') return a.toString();
  const p = (a as ipaddr.IPv6).parts;
  return `${p
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(':')}::/64`;
}
