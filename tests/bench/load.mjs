// Load test of `oomlens serve` on loopback (a script, not a unit test).
//
//   node tests/bench/load.mjs [path/to/oomlens] [requests=10000] [concurrency=32] [slowloris=0]
//
// Starts the server on a free loopback port, sends the requests with bounded
// concurrency (the E0101 seed to POST /api/v1/diagnose), and prints failures,
// latency percentiles, throughput and the server's peak memory (VmHWM). With
// slowloris > 0, that many connections first send half a request head and then a
// byte every 2 s (inside any per-read timeout) during the whole run; the script
// prints when the server cut them off (it should, with 408, after about
// --request-timeout) and the load's figures beside them.
import http from 'node:http';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const bin = path.resolve(process.argv[2] || path.join(here, '../../build/oomlens'));
const total = Number(process.argv[3] || 10000);
const concurrency = Number(process.argv[4] || 32);
const slowloris = Number(process.argv[5] || 0);
const body = "XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting to reserve 29.49G " +
  'at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable.';

const server = spawn(bin, ['serve', '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
const port = await new Promise((resolve, reject) => {
  let seen = '';
  server.stderr.on('data', (c) => { seen += c; const m = seen.match(/127\.0\.0\.1:(\d+)\//); if (m) resolve(Number(m[1])); });
  setTimeout(() => reject(new Error('server did not start')), 10000);
});
// A connection that never finishes its head: resolves with when and how it ended.
function slowClient() {
  return new Promise((resolve) => {
    const start = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    let timer = null;
    socket.on('connect', () => {
      socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
      timer = setInterval(() => socket.write('X'), 2000);
    });
    socket.on('data', (c) => { reply += c; });
    const end = () => { clearInterval(timer); resolve({ s: (Date.now() - start) / 1000, status: reply.slice(9, 12) }); };
    socket.on('close', end);
    socket.on('error', () => {});
  });
}
const slow = Array.from({ length: slowloris }, slowClient);
if (slowloris) await new Promise((r) => setTimeout(r, 500));
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
if (slowloris) {
  const ended = await Promise.race([Promise.all(slow), new Promise((r) => setTimeout(() => r(null), 120000))]);
  if (!ended) console.log(`slowloris ${slowloris}: still connected after 120 s (no deadline per request)`);
  else {
    const times = ended.map((e) => e.s).sort((a, b) => a - b);
    const status = [...new Set(ended.map((e) => e.status || 'closed'))].join(', ');
    console.log(`slowloris ${slowloris}: cut off after ${times[0].toFixed(1)}-${times[times.length - 1].toFixed(1)} s (${status})`);
  }
}
console.log(`server peak memory ${hwm ? (Number(hwm[1]) / 1024).toFixed(1) : '?'} MiB`);
process.exit(failures === 0 ? 0 : 1);
