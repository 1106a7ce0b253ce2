import { isIP } from 'node:net';

/**
 * Why an address is not a public internet address (loopback, private, link-local, CGNAT,
 * unique-local, metadata...), or undefined for a public one. IPv4 inside IPv6 (mapped,
 * NAT64, 6to4) is judged as the IPv4 address it carries.
 */
export function refusedAddressReason(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return ipv4Reason(bare.split('.').map(Number) as [number, number, number, number]);
  if (family === 6) return ipv6Reason(expandIpv6(bare));
  return 'not an IP address';
}

function ipv4Reason([a, b, c]: [number, number, number, number]): string | undefined {
  if (a === 0) return 'unspecified ("this network", 0.0.0.0/8)';
  if (a === 127) return 'loopback (127.0.0.0/8)';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private (10/8, 172.16/12, 192.168/16)';
  if (a === 169 && b === 254) return 'link-local or cloud metadata (169.254.0.0/16)';
  if (a === 100 && b >= 64 && b <= 127) return 'carrier-grade NAT (100.64.0.0/10)';
  if (a === 192 && b === 0 && c === 0) return 'IETF protocol assignments (192.0.0.0/24)';
  if (a === 198 && (b === 18 || b === 19)) return 'benchmarking (198.18.0.0/15)';
  if (a >= 224) return 'multicast or reserved (224.0.0.0/3)';
  return undefined;
}

function ipv6Reason(words: number[]): string | undefined {
  const embedded = (hi: number, lo: number) => ipv4Reason([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const zeroUpTo = (n: number) => words.slice(0, n).every((w) => w === 0);
  if (zeroUpTo(8)) return 'unspecified (::)';
  if (zeroUpTo(7) && words[7] === 1) return 'loopback (::1)';
  // ::ffff:a.b.c.d (mapped) reaches the IPv4 address; ::a.b.c.d (compatible) is deprecated.
  if (zeroUpTo(5) && words[5] === 0xffff) return embedded(words[6]!, words[7]!);
  if (zeroUpTo(6)) return 'IPv4-compatible (::/96, deprecated)';
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0)) return embedded(words[6]!, words[7]!);
  if (words[0] === 0x64 && words[1] === 0xff9b) return 'local-use NAT64 (64:ff9b:1::/48)';
  if (words[0] === 0x2002) return embedded(words[1]!, words[2]!);
  const first = words[0]!;
  if ((first & 0xfe00) === 0xfc00) return 'unique-local (fc00::/7)';
  if ((first & 0xffc0) === 0xfe80) return 'link-local (fe80::/10)';
  if ((first & 0xffc0) === 0xfec0) return 'site-local (fec0::/10, deprecated)';
  if ((first & 0xff00) === 0xff00) return 'multicast (ff00::/8)';
  return undefined;
}

/** The eight 16-bit words of an IPv6 address (a zone index dropped, an IPv4 tail converted). */
function expandIpv6(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -tail[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const middle = rest === undefined ? [] : new Array(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((w) => parseInt(w, 16));
}
