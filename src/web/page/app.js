// The page: reads pasted text and dropped files, hands their bytes to the engine
// (oomlens.js, the core compiled to WebAssembly), and shows the report. A link
// shares the log itself, deflated and base64url-encoded after '#', optionally
// masked first (mask.js). Nothing is fetched or sent: the module's bytes come
// from oomlens-wasm.js, gzip is opened with the browser's DecompressionStream.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  let engine = null;
  let lastInputs = [];
  // Runs overlap (a file chosen, then Diagnose clicked, while the first is still read):
  // only the newest one shows its report. body[data-running] counts those in flight.
  let newestRun = 0;
  let running = 0;

  function say(text, isError) {
    $('status').textContent = text;
    $('status').className = isError ? 'error' : 'muted';
  }

  function decodeBase64(text) {
    const raw = atob(text);
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }

  async function startEngine() {
    engine = await createOomlens({ wasmBinary: decodeBase64(globalThis.OOMLENS_WASM) });
    $('version').textContent = 'version ' + engine.UTF8ToString(engine._oomlens_version());
    diagnose([], 'json', '');  // compiles the rules now, not at the first paste
  }

  // Bytes into the module's memory as a C string; the caller frees it.
  function cString(engine, text) {
    const size = engine.lengthBytesUTF8(text) + 1;
    const ptr = engine._malloc(size);
    engine.stringToUTF8(text, ptr, size);
    return ptr;
  }

  // Runs one scan over inputs [{name, bytes}] and returns the rendered report.
  function diagnose(inputs, format, chip) {
    const chipPtr = cString(engine, chip);
    const why = engine.UTF8ToString(engine._oomlens_begin(chipPtr));
    engine._free(chipPtr);
    if (why) throw new Error(why);
    for (const input of inputs) {
      const namePtr = cString(engine, input.name);
      const dataPtr = engine._malloc(Math.max(1, input.bytes.length));
      engine.HEAPU8.set(input.bytes, dataPtr);
      engine._oomlens_add(namePtr, dataPtr, input.bytes.length);
      engine._free(dataPtr);
      engine._free(namePtr);
    }
    const formatPtr = cString(engine, format);
    const report = engine.UTF8ToString(engine._oomlens_finish(formatPtr));
    engine._free(formatPtr);
    return report;
  }

  async function gunzip(bytes) {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  // A file's text as UTF-8 bytes: gzip opened (layers too), UTF-16 decoded; zstd refused with why.
  async function fileBytes(file) {
    let bytes = new Uint8Array(await file.arrayBuffer());
    for (let layer = 0; layer < 4 && bytes[0] === 0x1f && bytes[1] === 0x8b; layer++) bytes = await gunzip(bytes);
    if (bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd) {
      throw new Error(`${file.name}: zstd is not opened in the browser; decompress it first (zstd -d) or use the command line`);
    }
    const bom = bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : '';
    if (bom) bytes = new TextEncoder().encode(new TextDecoder(bom).decode(bytes));
    return bytes;
  }

  async function gatherInputs() {
    const inputs = [];
    const pasted = $('log').value;
    if (pasted.trim()) inputs.push({ name: '<paste>', text: pasted, bytes: new TextEncoder().encode(pasted) });
    for (const file of $('files').files) {
      const bytes = await fileBytes(file);
      inputs.push({ name: file.name, bytes });
    }
    return inputs;
  }

  function show(report, format) {
    if (format === 'html') {
      $('plain').hidden = true;
      $('report').hidden = false;
      $('report').srcdoc = report;
    } else {
      $('report').hidden = true;
      $('plain').hidden = false;
      $('plain').textContent = report;
    }
  }

  async function run() {
    const mine = ++newestRun;
    document.body.dataset.running = String(++running);
    try {
      const started = performance.now();
      const inputs = await gatherInputs();
      if (mine !== newestRun) return;  // a newer run reads what the page holds now
      if (!inputs.length) return say('Paste a log or choose files first.', true);
      const format = $('format').value;
      const report = diagnose(inputs, format, $('chip').value.trim());
      show(report, format);
      lastInputs = inputs;
      $('share').disabled = false;
      const bytes = inputs.reduce((n, i) => n + i.bytes.length, 0);
      say(`Read ${inputs.length} input${inputs.length === 1 ? '' : 's'}, ${bytes} bytes, in ${Math.round(performance.now() - started)} ms.`);
      document.body.dataset.diagnosed = String(Number(document.body.dataset.diagnosed || 0) + 1);
    } catch (e) {
      if (mine === newestRun) say(String(e.message || e), true);
    } finally {
      document.body.dataset.running = String(--running);
    }
  }

  // base64url of deflated UTF-8, and back.
  async function pack(text) {
    const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate'));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    let raw = '';
    for (let i = 0; i < bytes.length; i += 0x8000) raw += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(raw).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  // A link is untrusted input: a few hundred kilobytes of deflate can unpack to
  // gigabytes, so unpacking stops at MAX_SHARED_BYTES.
  const MAX_SHARED_BYTES = 64 << 20;
  async function unpack(packed) {
    const bytes = decodeBase64(packed.replace(/-/g, '+').replace(/_/g, '/'));
    const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate')).getReader();
    const parts = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > MAX_SHARED_BYTES) {
        await reader.cancel();
        throw new Error(`it unpacks to more than ${MAX_SHARED_BYTES >> 20} MiB; share an excerpt, or the file itself`);
      }
      parts.push(value);
    }
    return new TextDecoder().decode(await new Blob(parts).arrayBuffer());
  }

  async function share() {
    const decoder = new TextDecoder();
    let text = lastInputs.map((i) => (lastInputs.length > 1 ? `==> ${i.name} <==\n` : '') + (i.text ?? decoder.decode(i.bytes))).join('\n');
    if ($('mask').checked) text = globalThis.oomlensMask(text);
    const state = { v: 1, chip: $('chip').value.trim(), log: text };
    const link = location.href.split('#')[0] + '#r=' + (await pack(JSON.stringify(state)));
    $('share-link').textContent = link;
    try { await navigator.clipboard.writeText(link); say('Link copied: it holds the log itself (' + link.length + ' characters).'); }
    catch (e) { say('Copy the link below: it holds the log itself (' + link.length + ' characters).'); }
  }

  async function openShared() {
    const m = location.hash.match(/^#r=([A-Za-z0-9_-]+)$/);
    if (!m) return;
    try {
      const state = JSON.parse(await unpack(m[1]));
      $('log').value = String(state.log || '');
      $('chip').value = String(state.chip || '');
      await run();
    } catch (e) {
      say('This link does not hold a report oomlens can read: ' + (e.message || e), true);
    }
  }

  function listen() {
    $('diagnose').addEventListener('click', run);
    $('share').addEventListener('click', share);
    $('format').addEventListener('change', run);
    $('files').addEventListener('change', run);
    document.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dragging'); });
    document.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
    document.addEventListener('drop', (e) => {
      e.preventDefault();
      document.body.classList.remove('dragging');
      $('files').files = e.dataTransfer.files;
      run();
    });
    $('log').addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) run(); });
  }

  startEngine().then(() => {
    listen();
    $('diagnose').disabled = false;
    say('Ready. Nothing you paste leaves this page.');
    document.body.dataset.ready = '1';
    return openShared();
  }).catch((e) => say('The engine did not start: ' + (e.message || e), true));
})();
