/**
 * redfish-sim: starts N virtual BMCs on 127.0.0.1 serving Redfish mockup trees and prints
 * their addresses (one per line: `<url> <tree>`, or JSON with --json), then serves until
 * interrupted. Usage:
 *   redfish-sim [--count N] [--tree NAME|DIR]... [--scenario NAME]... [--latency MS] [--tls KEY CERT]
 *               [--port BASE] [--username U] [--password P] [--page-size N] [--json]
 * On SIGUSR2 it prints one JSON line of counters to stdout (requests, connections, peak in flight, ms from the
 * first request received to the last answer sent, both as wall-clock ms, CPU time used) and resets them: the
 * benchmark reads it.
 * Default trees: every bundled one (src/redfish-sim/mockups), round-robin; a scenario
 * (src/redfish-sim/scenarios.ts) is an edited bundled tree with its own BMC behaviour.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BmcOptions, startSimulator } from '../redfish-sim/server.js';
import { bundledTrees, mockupsDir } from '../redfish-sim/mockups.js';
import { SCENARIOS, scenarioBmc } from '../redfish-sim/scenarios.js';
import { pushAll } from '../krm/index.js';

function usage(): never {
  process.stderr.write(
    'usage: redfish-sim [--count N] [--tree NAME|DIR]... [--scenario NAME]... [--latency MS] [--tls KEY CERT] [--port BASE] [--username U] [--password P] [--page-size N] [--json]\n',
  );
  process.exit(2);
}

async function run(): Promise<void> {
  const args = process.argv.slice(2);
  let count = 1;
  const trees: string[] = [];
  const scenarios: string[] = [];
  let latencyMs = 0;
  let basePort = 0;
  let tls: { key: string; cert: string } | undefined;
  let username = 'admin';
  let password = 'password';
  let pageSize: number | undefined;
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const next = () => args[++i] ?? usage();
    if (a === '--count') count = Number(next());
    else if (a === '--tree') trees.push(next());
    else if (a === '--scenario') scenarios.push(next());
    else if (a === '--latency') latencyMs = Number(next());
    else if (a === '--port') basePort = Number(next());
    else if (a === '--tls') tls = { key: readFileSync(next(), 'utf8'), cert: readFileSync(next(), 'utf8') };
    else if (a === '--username') username = next();
    else if (a === '--password') password = next();
    else if (a === '--page-size') pageSize = Number(next());
    else if (a === '--json') json = true;
    else if (a === '--help' || a === '-h') {
      process.stdout.write(`bundled trees: ${bundledTrees().join(', ')}\nscenarios: ${SCENARIOS.map((x) => x.name).join(', ')}\n`);
      usage();
    } else usage();
  }
  if (!Number.isInteger(count) || count < 1) usage();
  const names = trees.length || scenarios.length ? [...trees, ...scenarios] : bundledTrees();
  const sources: (string | BmcOptions)[] = [
    ...trees.map((t) => (existsSync(join(t, 'redfish/v1/index.json')) ? t : join(mockupsDir(), t))),
    ...scenarios.map((s) => scenarioBmc(s)),
  ];
  if (!sources.length)
    pushAll(
      sources,
      names.map((t) => join(mockupsDir(), t)),
    );
  const sim = await startSimulator({ trees: sources, count, latencyMs, basePort, tls, username, password, pageSize, keepLog: false });
  const list = sim.bmcs.map((b, i) => ({ url: b.url, tree: names[i % names.length] }));
  process.stdout.write(json ? JSON.stringify(list) + '\n' : list.map((b) => `${b.url} ${b.tree}`).join('\n') + '\n');
  let cpu = process.cpuUsage();
  process.on('SIGUSR2', () => {
    const c = sim.counters;
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    const cpuMs = Math.round((used.user + used.system) / 1000);
    process.stdout.write(
      JSON.stringify({
        requests: c.requests,
        connections: c.connections,
        peakInFlight: c.peakInFlight,
        firstAt: c.firstAt,
        lastAt: c.lastAt,
        activeMs: Math.round(c.lastAt - c.firstAt),
        cpuMs,
      }) + '\n',
    );
    Object.assign(c, { requests: 0, connections: 0, inFlight: 0, peakInFlight: 0, firstAt: 0, lastAt: 0 });
  });
  const stop = () => void sim.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void run();
