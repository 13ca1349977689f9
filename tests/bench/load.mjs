// Load test of `oomlens serve` on loopback (a script, not a unit test).
//
//   node tests/bench/load.mjs [path/to/oomlens] [requests=10000] [concurrency=32]
//
// Starts the server on a free loopback port, sends the requests with bounded
// concurrency (the E0101 seed to POST /api/v1/diagnose), and prints failures,
// latency percentiles, throughput and the server's peak memory (VmHWM).
import http from 'node:http';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const bin = path.resolve(process.argv[2] || path.join(here, '../../build/oomlens'));
const total = Number(process.argv[3] || 10000);
const concurrency = Number(process.argv[4] || 32);
const body = "XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting to reserve 29.49G " +
  'at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable.';

const server = spawn(bin, ['serve', '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
const port = await new Promise((resolve, reject) => {
  let seen = '';
  server.stderr.on('data', (c) => { seen += c; const m = seen.match(/127\.0\.0\.1:(\d+)\//); if (m) resolve(Number(m[1])); });
  setTimeout(() => reject(new Error('server did not start')), 10000);
});
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
function request() {
  return new Promise((resolve) => {
    const start = process.hrtime.bigint();
    const req = http.request({ host: '127.0.0.1', port, path: '/api/v1/diagnose', method: 'POST', agent,
      headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': Buffer.byteLength(body) }, timeout: 10000 }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ ok: res.statusCode === 200 && text.includes('oversize'),
        ms: Number(process.hrtime.bigint() - start) / 1e6 }));
    });
    req.on('error', () => resolve({ ok: false, ms: Number(process.hrtime.bigint() - start) / 1e6 }));
    req.on('timeout', () => req.destroy());
    req.end(body);
  });
}
let sent = 0;
const results = [];
const began = Date.now();
async function worker() { while (sent < total) { sent++; results.push(await request()); } }
await Promise.all(Array.from({ length: concurrency }, worker));
const seconds = (Date.now() - began) / 1000;
const hwm = readFileSync(`/proc/${server.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
server.kill('SIGINT');
agent.destroy();
const ms = results.map((r) => r.ms).sort((a, b) => a - b);
const pct = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))].toFixed(2);
const failures = results.filter((r) => !r.ok).length;
console.log(`requests ${results.length}, concurrency ${concurrency}, failures ${failures}`);
console.log(`latency ms: p50 ${pct(0.5)} p90 ${pct(0.9)} p99 ${pct(0.99)} max ${ms[ms.length - 1].toFixed(2)}`);
console.log(`throughput ${(results.length / seconds).toFixed(0)} requests/s over ${seconds.toFixed(1)} s`);
console.log(`server peak memory ${hwm ? (Number(hwm[1]) / 1024).toFixed(1) : '?'} MiB`);
process.exit(failures === 0 ? 0 : 1);
