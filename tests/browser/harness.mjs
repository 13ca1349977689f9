// What the browser tests share: named tests that count passes and failures, and
// Debian's Chromium started headless the way this machine's closed network needs.
import { chromium } from 'playwright-core';

// The seed message (E0101) the project started from.
export const SEED = "XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_embedding_pipeline_step_fn': " +
  'Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B ' +
  'reserved, and 147.64M reservable. Scope: unknown..: while running replica 0 and partition 34 of a replicated ' +
  'computation (other replicas may have failed as well).';

const counts = { passed: 0, failed: 0 };

export async function test(name, body) {
  try {
    await body();
    counts.passed++;
    console.log(`ok - ${name}`);
  } catch (e) {
    counts.failed++;
    console.log(`not ok - ${name}: ${e.message}`);
  }
}

export function expect(condition, what) { if (!condition) throw new Error(what); }

export function launchChromium(extraArgs = []) {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });
}

// Prints "N passed, N failed" and exits 1 when any failed.
export function finish() {
  console.log(`${counts.passed} passed, ${counts.failed} failed`);
  process.exit(counts.failed === 0 ? 0 : 1);
}
