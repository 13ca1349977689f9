// A notebook's view of oomlens in headless Chromium: the HTML that _repr_html_()
// gives (Report and FleetReport) is put into a notebook-like page the way Jupyter
// puts an output (innerHTML of an output area). The page's own body, headings,
// tables and code keep their computed styles, and the report inside is styled.
// As a control, unscoped styles put in the same way do restyle the page, so the
// test can tell.
//
//   node notebook.mjs [path/to/build/python] [screenshot folder]
import { expect, finish, launchChromium, test } from './harness.mjs';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const pythonPath = path.resolve(process.argv[2] || path.join(here, '../../build/python'));
const shots = path.resolve(process.argv[3] || path.join(here, '../../build/browser'));
const example = path.join(here, '../../testdata/examples/multihost_e0101.log');
mkdirSync(shots, { recursive: true });

// What the package gives a notebook, from Debian's python3 and the built module.
function python(expression) {
  return execFileSync('/usr/bin/python3', ['-c', `import oomlens, sys; sys.stdout.write(${expression})`],
    { env: { ...process.env, PYTHONPATH: pythonPath }, encoding: 'utf8' });
}
const report = `oomlens.scan(${JSON.stringify(example)})`;
const outputs = {
  'Report._repr_html_()': python(`${report}._repr_html_()`),
  'FleetReport._repr_html_()': python(`${report}.fleet()._repr_html_()`),
};
const wholePage = python(`${report}.to_html()`);

// A notebook's page: its own styles on body, h1, table, pre, then an output area.
const NOTEBOOK = `<!DOCTYPE html><html><head><style>
  body { font-family: serif; color: rgb(1, 2, 3); margin: 5px; }
  h1 { font-size: 40px; color: rgb(0, 128, 0); }
  table { border-collapse: separate; }
  td { padding: 9px; }
  pre { background-color: rgb(255, 255, 0); }
</style></head><body>
  <h1 id="title">My notebook</h1><table id="cells"><tr><td id="cell">x</td></tr></table>
  <pre id="code">print(1)</pre><div class="output_area" id="out"></div>
</body></html>`;

// The computed styles the notebook's own elements have.
const OWN = [['body', 'fontFamily'], ['body', 'color'], ['body', 'margin'], ['#title', 'fontSize'],
  ['#title', 'color'], ['#cells', 'borderCollapse'], ['#cell', 'padding'], ['#code', 'backgroundColor']];
function ownStyles(page) {
  return page.evaluate((own) => own.map(([selector, property]) =>
    `${selector} ${property}: ${getComputedStyle(document.querySelector(selector))[property]}`), OWN);
}

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });

for (const [name, html] of Object.entries(outputs)) {
  await test(`${name} in a notebook restyles nothing around it`, async () => {
    await page.setContent(NOTEBOOK);
    const before = await ownStyles(page);
    await page.evaluate((h) => { document.getElementById('out').innerHTML = h; }, html);
    const after = await ownStyles(page);
    const changed = before.filter((line, k) => line !== after[k]);
    expect(changed.length === 0, `the notebook's own styles changed: ${changed.join('; ')} -> ` +
      after.filter((line, k) => line !== before[k]).join('; '));
    expect(await page.locator('#out > .oomlens-report').count() === 1, 'one root element');
    const heading = await page.evaluate(() =>
      getComputedStyle(document.querySelector('#out .oomlens-report h1')).fontSize);
    expect(heading !== '40px', `the report's heading has its own size (got ${heading})`);
    await page.screenshot({ path: path.join(shots, `notebook-${name.split('.')[0]}.png`), fullPage: true });
  });
}

// The control: styles that are not scoped, as the report's were before, do restyle
// the notebook here, so a pass above means something.
await test('unscoped styles in an output restyle the notebook (the control)', async () => {
  await page.setContent(NOTEBOOK);
  const before = await ownStyles(page);
  const unscoped = '<style>body{font:14px/1.45 system-ui,sans-serif;color:#222}h1{font-size:1.4em}' +
    'table{border-collapse:collapse}pre{background:#f6f6f6}</style><h1>oomlens</h1>';
  await page.evaluate((h) => { document.getElementById('out').innerHTML = h; }, unscoped);
  const after = await ownStyles(page);
  expect(before.filter((line, k) => line !== after[k]).length >= 4, 'the control restyled the notebook');
  expect(wholePage.startsWith('<!DOCTYPE html>') && !outputs['Report._repr_html_()'].includes('<title'),
    'to_html() is a page, _repr_html_() an element without title or meta');
});

await browser.close();
finish();
