// What the browser tests share: named tests that count passes and failures, and
// Debian's Chromium started headless the way this machine's closed network needs.
import { chromium } from 'playwright-core';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const docsImg = path.join(path.dirname(new URL(import.meta.url).pathname), '../../docs/img');

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

// The text a frame shows once it holds `want` (or after timeoutMs). A report set as an
// iframe's srcdoc navigates that frame, and an evaluate caught by the navigation fails
// with "Execution context was destroyed": that is retried, never a test failure.
export async function frameText(frame, want = '', timeoutMs = 30000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    let text = null;
    try {
      text = await frame.evaluate(() => document.body ? document.body.innerText : '');
    } catch (e) {
      if (!/context was destroyed|navigat|detached/i.test(String(e.message)) || Date.now() > end) throw e;
    }
    if (text !== null && (text.includes(want) || Date.now() > end)) return text;
    await new Promise((r) => setTimeout(r, 25));
  }
}

// The text a page shows, frames too, one line per line, blanks dropped.
async function pageText(page) {
  const texts = [];
  for (const frame of page.frames()) texts.push(await frameText(frame));
  return texts.join('\n').split('\n').map((l) => l.replace(/\s+/g, ' ').trim()).filter((l) => l).join('\n') + '\n';
}

// A screenshot the docs show (docs/img/NAME.png), taken into shots. With
// OOMLENS_UPDATE_SCREENSHOTS=1 (./build.sh screenshots) it replaces the docs' picture,
// and the page's text is written beside it (NAME.txt). Otherwise, when `checked`,
// the page must read as it did when the docs' picture was taken: a picture that no
// longer shows what oomlens shows fails here, with the way to renew it.
export async function docScreenshot(page, name, shots, checked = true) {
  const shot = path.join(shots, `${name}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  const text = await pageText(page);
  const recordedPath = path.join(docsImg, `${name}.txt`);
  if (process.env.OOMLENS_UPDATE_SCREENSHOTS === '1') {
    copyFileSync(shot, path.join(docsImg, `${name}.png`));
    writeFileSync(recordedPath, text);
    return;
  }
  if (!checked) return;
  const recorded = existsSync(recordedPath) ? readFileSync(recordedPath, 'utf8') : '';
  const a = recorded.split('\n'), b = text.split('\n');
  const k = a.findIndex((line, i) => line !== b[i]);
  expect(recorded === text, `docs/img/${name}.png is stale: the page now reads differently at line ${k + 1} ` +
    `(was "${a[k] ?? ''}", is "${b[k] ?? ''}"); run ./build.sh screenshots and commit docs/img`);
}

// Prints "N passed, N failed" and exits 1 when any failed.
export function finish() {
  console.log(`${counts.passed} passed, ${counts.failed} failed`);
  process.exit(counts.failed === 0 ? 0 : 1);
}
