import { describe, expect, it } from 'vitest';
import { BMC_SCHEMES, bmcIdentity, chooseScheme, parseBmcAddress, redactBmcAddress, schemeFor } from './bmc.js';

describe('BMC addresses (one table of BMO schemes)', () => {
  it('reads every scheme BMO accepts, with and without a transport', () => {
    for (const s of BMC_SCHEMES) {
      const a = parseBmcAddress(`${s.name}://10.0.0.1/redfish/v1/Systems/1`)!;
      expect(a.known?.name).toBe(s.name);
      if (s.transports) expect(parseBmcAddress(`${s.name}+http://10.0.0.1/x`)!.transport).toBe('http');
    }
    expect(parseBmcAddress('10.0.0.1:6230')).toMatchObject({ scheme: 'ipmi', port: 6230, host: '10.0.0.1' });
    expect(parseBmcAddress('idrac://10.0.0.1')!.known).toBeUndefined();
  });

  it('refuses what is no address: spaces, ports out of range, an unknown transport', () => {
    for (const bad of ['redfish://10.0.0.1:99999/x', 'redfish://10.0.0.1 /x', 'redfish+ftp://h/x', '', 'redfish://:443/x'])
      expect(parseBmcAddress(bad), bad).toBeUndefined();
    expect(parseBmcAddress('redfish://admin:pw@10.0.0.1/x')!.userinfo).toBe(true);
    // a credential in the query is one too: shown masked, refused where user info is
    expect(parseBmcAddress('redfish://10.0.0.1/redfish/v1/Systems/1?password=s3cr3t-1')!.userinfo).toBe(true);
    expect(redactBmcAddress('redfish://10.0.0.1/redfish/v1/Systems/1?password=s3cr3t-1')).toBe(
      'redfish://10.0.0.1/redfish/v1/Systems/1?password=***',
    );
    expect(parseBmcAddress('redfish://10.0.0.1/redfish/v1/Systems/1?x=1')!.userinfo).toBe(false);
    // a password with '/' or '@' in it is still user info, never part of the host or path
    expect(parseBmcAddress('redfish://admin:p/a@ss@10.0.0.1/redfish/v1/Systems/1')).toMatchObject({
      userinfo: true,
      host: '10.0.0.1',
      path: '/redfish/v1/Systems/1',
    });
  });

  it('one BMC whatever the driver scheme and the default port', () => {
    const same = [
      'redfish://10.0.0.1/redfish/v1/Systems/1',
      'idrac-virtualmedia://10.0.0.1:443/redfish/v1/Systems/1/',
      'REDFISH+HTTPS://10.0.0.1/redfish/v1/Systems/1',
    ].map(bmcIdentity);
    expect(new Set(same).size).toBe(1);
    expect(bmcIdentity('redfish+http://10.0.0.1:80/S/1')).toBe(bmcIdentity('redfish+http://10.0.0.1/S/1'));
    expect(bmcIdentity('redfish+http://10.0.0.1:443/S/1')).not.toBe(bmcIdentity('redfish+http://10.0.0.1/S/1'));
    expect(bmcIdentity('10.0.0.1:623')).toBe(bmcIdentity('ipmi://10.0.0.1'));
  });

  it("writes the vendor's own scheme where BMO gives it its own driver (iDRAC), not HPE's ilo5 aliases of the generic one", () => {
    expect(schemeFor({ vendor: 'dell', bootMethod: 'virtualmedia' })).toBe('idrac-virtualmedia');
    expect(schemeFor({ vendor: 'dell', bootMethod: 'ipxe' })).toBe('idrac-redfish');
    expect(schemeFor({ bootMethod: 'ipxe', transport: 'http' })).toBe('redfish+http');
    expect(schemeFor({ vendor: 'dell', bootMethod: 'uefihttp' })).toBe('redfish-uefihttp');
    expect(schemeFor({ vendor: 'hpe', bootMethod: 'virtualmedia' })).toBe('redfish-virtualmedia');
    expect(BMC_SCHEMES.filter((s) => s.vendor === 'hpe').map((s) => s.driver)).toEqual(['redfish', 'redfish']);
  });

  it('chooses the scheme from what the BMC and the System offer', () => {
    const dell = { vendor: 'dell' as const, bootMac: true };
    expect(chooseScheme('virtualmedia', { ...dell, virtualMedia: true })).toEqual({
      scheme: 'idrac-virtualmedia',
      bootMethod: 'virtualmedia',
    });
    // not known (a snapshot from before VirtualMedia was recorded): as asked
    expect(chooseScheme('virtualmedia', dell).scheme).toBe('idrac-virtualmedia');
    const uefi = chooseScheme('virtualmedia', { ...dell, virtualMedia: false, uefiHttp: true });
    expect(uefi.scheme).toBe('redfish-uefihttp');
    expect(uefi.why).toMatch(/no VirtualMedia devices; the System boots over UEFI HTTP/);
    const ipxe = chooseScheme('virtualmedia', { ...dell, virtualMedia: false, transport: 'http' });
    expect([ipxe.scheme, ipxe.warning]).toEqual(['idrac-redfish+http', undefined]);
    const none = chooseScheme('virtualmedia', { virtualMedia: false });
    expect([none.scheme, none.why]).toEqual(['redfish', undefined]);
    expect(none.warning).toMatch(/no boot method is known to work/);
    // an explicit method is written as asked
    expect(chooseScheme('ipxe', { virtualMedia: true }).scheme).toBe('redfish');
    expect(chooseScheme('uefihttp', { vendor: 'dell', virtualMedia: true }).scheme).toBe('redfish-uefihttp');
    // every scheme it writes is one BMO accepts
    for (const want of ['virtualmedia', 'ipxe', 'uefihttp'] as const)
      for (const virtualMedia of [true, false, undefined])
        for (const uefiHttp of [true, false])
          for (const vendor of ['dell', 'hpe', undefined] as const)
            for (const transport of ['http', 'https'] as const) {
              const c = chooseScheme(want, { vendor, virtualMedia, uefiHttp, bootMac: true, transport });
              expect(parseBmcAddress(`${c.scheme}://10.0.0.1/redfish/v1/Systems/1`)?.known, c.scheme).toBeDefined();
            }
  });
});
