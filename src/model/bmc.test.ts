import { describe, expect, it } from 'vitest';
import { BMC_SCHEMES, bmcIdentity, parseBmcAddress, schemeFor } from './bmc.js';

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

  it("writes the vendor's own driver where BMO has one", () => {
    expect(schemeFor({ vendor: 'dell', bootMethod: 'virtualmedia' })).toBe('idrac-virtualmedia');
    expect(schemeFor({ bootMethod: 'ipxe', transport: 'http' })).toBe('redfish+http');
    expect(schemeFor({ vendor: 'dell', bootMethod: 'uefihttp' })).toBe('redfish-uefihttp');
  });
});
