/**
 * Which addresses the `fetch` server may connect to. Only public unicast addresses, unless the
 * configuration allows more: a model that can fetch any URL could otherwise reach the machine's own
 * services, the local network, or a cloud metadata endpoint (169.254.169.254) on a page's say-so.
 *
 * The check is made on the address actually connected to: a host name is resolved by our own
 * lookup, which refuses when any of its addresses is not allowed, and the connection uses the
 * address that lookup returned, so a name cannot resolve one way for the check and another for the
 * connection (DNS rebinding).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { createRequire } from 'node:module';
import type * as IpAddr from 'ipaddr.js';

// ipaddr.js is CommonJS (`module.exports = ipaddr`), which Node's ESM loader exposes only as a
// default export while its types declare named ones; require() gives the object its types describe.
const ipaddr = createRequire(import.meta.url)('ipaddr.js') as typeof IpAddr;

/** What may be reached besides public addresses. */
export interface NetworkPolicy {
  /** Everything: loopback, private, link-local … */
  readonly allowPrivateNetworks: boolean;
  /** Addresses or CIDR ranges allowed although not public. */
  readonly allowedRanges: ReadonlyArray<[IpAddr.IPv4 | IpAddr.IPv6, number]>;
}

/** Parses `allowedAddresses` ("10.0.0.0/8", "127.0.0.1", "::1"); throws naming a bad entry. */
export function parseAllowedAddresses(entries: readonly string[]): NetworkPolicy['allowedRanges'] {
  return entries.map((entry) => {
    try {
      if (entry.includes('/')) return ipaddr.parseCIDR(entry);
      const address = ipaddr.parse(entry);
      return [address, address.kind() === 'ipv4' ? 32 : 128];
    } catch {
      throw new Error(`"${entry}" in allowedAddresses is not an IP address or CIDR range`);
    }
  });
}

/** Why an address may not be reached, or undefined when it may. */
export function refusalFor(address: string, policy: NetworkPolicy): string | undefined {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  // `::ffff:127.0.0.1` is judged as the IPv4 address it carries.
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === 'unicast' || policy.allowPrivateNetworks) return undefined;
  const allowed = policy.allowedRanges.some(
    ([network, bits]) => network.kind() === parsed.kind() && parsed.match([network, bits] as never),
  );
  if (allowed) return undefined;
  return `${address} is a ${range} address, which fetch does not reach (set "allowPrivateNetworks" or "allowedAddresses" in the fetch server's options to allow it)`;
}

/** A refused connection: the model is told why. */
export class AddressRefusedError extends Error {
  constructor(host: string, reason: string) {
    super(host === '' ? reason : `${host}: ${reason}`);
    this.name = 'AddressRefusedError';
  }
}

/** A `lookup` for `http.request` that only ever yields allowed addresses. */
export function guardedLookup(policy: NetworkPolicy, lookup: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true } as LookupAllOptions, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '', 4);
        return;
      }
      for (const { address } of addresses) {
        const refusal = refusalFor(address, policy);
        if (refusal !== undefined) {
          callback(new AddressRefusedError(hostname, refusal), '', 4);
          return;
        }
      }
      if ((options as { all?: boolean }).all === true) {
        (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
        return;
      }
      const [first] = addresses;
      if (first === undefined) callback(new Error(`${hostname} has no address`), '', 4);
      else callback(null, first.address, first.family);
    });
  };
}
