// End-to-end tests of `oomlens serve` in headless Chromium (Debian's /usr/bin/chromium).
//
//   node e2e.mjs [path/to/oomlens] [screenshot folder]
//
// Starts the server on a free loopback port, pastes the E0101 seed, submits the
// form (no JavaScript needed), checks the cause and numbers in the rendered page,
// uploads a log file, pastes an XSS payload to check that no script runs, and
// submits a form from another page to check that the server refuses it.
// Screenshots go to the screenshot folder. Prints "N passed, N failed".
import { SEED, docScreenshot, expect, finish, launchChromium, test } from './harness.mjs';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const bin = path.resolve(process.argv[2] || path.join(here, '../../build/oomlens'));
const shots = path.resolve(process.argv[3] || path.join(here, '../../build/browser'));
const example = path.join(here, '../../testdata/examples/multihost_e0101.log');
mkdirSync(shots, { recursive: true });

const XSS = SEED.replace('jit_embedding_pipeline_step_fn',
  "<img src=x onerror=\"window.__xss=1;alert(1)\"><script>window.__xss=2</script>");

function startServer() {
  const server = spawn(bin, ['serve', '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    server.stderr.on('data', (chunk) => {
      seen += chunk;
      const m = seen.match(/serving on (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (m) resolve({ server, url: m[1] });
    });
    server.on('exit', (code) => reject(new Error(`oomlens serve exited with ${code}: ${seen}`)));
    setTimeout(() => reject(new Error(`no 'serving on' line within 10 s: ${seen}`)), 10000);
  });
}

const { server, url } = await startServer();
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
let dialogs = 0;
page.on('dialog', (d) => { dialogs++; d.dismiss(); });

await test('paste the seed and get its diagnosis', async () => {
  await page.goto(url);
  await page.fill('textarea[name=log]', SEED);
  await Promise.all([page.waitForURL(`${url}diagnose`), page.click('button[type=submit]')]);
  const text = await page.textContent('body');
  expect(text.includes('oversize'), 'cause oversize shown');
  expect(text.includes("Program 'jit_embedding_pipeline_step_fn' needs 29.49G but only 147.64M of HBM is free"),
    'summary with the numbers');
  expect(text.includes('204.5x'), 'ratio shown');
  expect(await page.locator('svg').count() === 1, 'one memory picture');
  await docScreenshot(page, 'serve-seed', shots);  // the README's picture, renewed by ./build.sh screenshots
});

await test('upload a log file', async () => {
  await page.goto(url);
  await page.setInputFiles('input[name=file]', example);
  await Promise.all([page.waitForURL(`${url}diagnose`), page.click('button[type=submit]')]);
  const text = await page.textContent('body');
  expect(text.includes('256 times'), 'the 256-partition storm is one incident');
  expect(text.includes('0-255 (256)'), 'partitions as a range');
});

await test('an XSS payload in the log runs no script', async () => {
  await page.goto(url);
  await page.fill('textarea[name=log]', XSS);
  await Promise.all([page.waitForURL(`${url}diagnose`), page.click('button[type=submit]')]);
  await page.waitForTimeout(300);
  expect(dialogs === 0, 'no alert');
  expect(await page.evaluate(() => window.__xss === undefined), 'no script ran');
  expect((await page.textContent('body')).includes('<script>window.__xss=2</script>'), 'payload shown as text');
  await page.screenshot({ path: path.join(shots, 'serve-xss.png'), fullPage: true });
});

await test('a form on another page cannot make the server diagnose', async () => {
  // a fresh about:blank page is another origin: the browser sends its Origin (null)
  const other = await browser.newPage();
  await other.goto('about:blank');
  await other.setContent(`<form method="post" action="${url}diagnose" enctype="multipart/form-data">` +
    `<textarea name="log">${SEED}</textarea><button type="submit">go</button></form>`);
  const [response] = await Promise.all([other.waitForNavigation(), other.click('button[type=submit]')]);
  expect(response.status() === 403, `refused (got ${response.status()})`);
  expect((await other.textContent('body')).includes('requests from other sites'), 'the reason shown');
  await other.close();
});

await browser.close();
server.kill('SIGINT');
console.log(`screenshots in ${shots}`);
finish();
