// Where a webhook may send: only public addresses, unless the operator allows private networks. A receiver's address
// is checked when the webhook is registered and again at every delivery, on every address its name resolves to, and
// the connection is made to the addresses checked (the lookup below), so a name that later resolves to a private
// address (DNS rebinding) reaches nothing inside the deployment's network.

import { lookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Ranges that are not the public internet: unspecified and "this network", private (RFC 1918), shared (CGNAT),
 * loopback, link-local, IETF protocol assignments, benchmarking, documentation, multicast, reserved and broadcast;
 * for IPv6 the unspecified and loopback addresses, unique-local, link-local, site-local, documentation and
 * multicast. IPv4-mapped and NAT64 IPv6 addresses are judged by the IPv4 address they carry (embeddedIpv4).
 */
const NON_PUBLIC_V4 = ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.0.2.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4'];
const NON_PUBLIC_V6 = ['::/128', '::1/128', 'fc00::/7', 'fe80::/10', 'fec0::/10', '2001:db8::/32', 'ff00::/8'];

const nonPublic = new BlockList();
for (const range of NON_PUBLIC_V4) {
  const [network, prefix] = range.split('/');
  nonPublic.addSubnet(network, Number(prefix), 'ipv4');
}
for (const range of NON_PUBLIC_V6) {
  const [network, prefix] = range.split('/');
  nonPublic.addSubnet(network, Number(prefix), 'ipv6');
}

/** The IPv4 address an IPv6 one carries (::ffff:a.b.c.d mapped, 64:ff9b::a.b.c.d NAT64), or null. */
function embeddedIpv4(address: string): string | null {
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const match = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!match) return null;
  const high = parseInt(match[1], 16);
  const low = parseInt(match[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether an IP address (v4 or v6, without brackets) is on the public internet. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !nonPublic.check(address, 'ipv4');
  if (family !== 6) return false;
  const carried = embeddedIpv4(address);
  if (carried !== null) return isPublicAddress(carried);
  return !nonPublic.check(address, 'ipv6');
}

/** Why an address may not be sent to; thrown where a lookup finds one (RefusedAddress.code names it for logs). */
export class RefusedAddress extends Error {
  readonly code = 'webhook_address_refused';
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a private, loopback, link-local or otherwise non-public address`);
    this.name = 'RefusedAddress';
  }
}

/** The host of a URL as a lookup or an IP check takes it: IPv6 literals without their brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Every address a host name resolves to (an IP literal is its own). */
export async function resolveAll(host: string): Promise<string[]> {
  if (isIP(host) !== 0) return [host];
  return new Promise((resolve, reject) => {
    lookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses.map((entry) => entry.address))));
  });
}

/** Throws RefusedAddress when any address of `host` is not public. */
export async function assertPublicHost(host: string): Promise<void> {
  for (const address of await resolveAll(host)) if (!isPublicAddress(address)) throw new RefusedAddress(host, address);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A lookup for http.request that resolves as dns.lookup does and refuses the connection when any address found is
 * not public: the addresses checked are the ones connected to. (An IP literal is never looked up: the sender checks it.)
 */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused) return callback(Object.assign(new RefusedAddress(hostname, refused.address), { errno: undefined }), []);
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
}
