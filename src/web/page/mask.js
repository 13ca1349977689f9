// Masks what identifies a job before its log goes into a shared link: host names
// and addresses, file paths, and XLA program names. Each distinct value gets one
// stable stand-in (host-1, /path-2, jit_program_3), so repeats still group and the
// numbers oomlens reads are kept. Exposed as globalThis.oomlensMask.
(function () {
  'use strict';
  const patterns = [
    // 'jit_train_step', pjit_step, program names quoted by TPU and XLA messages
    { kind: 'program', re: /\b(?:p?jit|xmap|pmap)_[A-Za-z0-9_.\-]+/g, make: (n) => `jit_program_${n}` },
    { kind: 'program', re: /(?<=\bprogram ')(?!jit_program_)[^']+(?=')/g, make: (n) => `program_${n}` },
    // absolute and home paths with at least two parts
    { kind: 'path', re: /(?:~|\b[A-Za-z]:)?(?:\/[\w.@+\-]+){2,}\/?/g, make: (n) => `/path-${n}` },
    // IPv4 addresses, then dotted host names (a letter-led label and a known-looking suffix)
    { kind: 'host', re: /\b(?:\d{1,3}\.){3}\d{1,3}\b/g, make: (n) => `10.0.0.${n}` },
    { kind: 'host', re: /\b[a-z][a-z0-9\-]*(?:\.[a-z0-9\-]+)*\.(?:internal|local|com|net|org|io|cluster|svc|ai|dev|cloud)\b/gi,
      make: (n) => `host-${n}` },
    // host= / hostname: / pod/ / node fields; after a space only a value that looks
    // like a name (a digit, or a dash or dot inside it), never the prose that follows
    // "node" or "host" ("the node was low on memory", "out of host memory")
    { kind: 'host', re: /(?<=\b(?:host(?:name)?|node|pod|worker)[=:/]\s*)[A-Za-z][\w.\-]*/gi, make: (n) => `host-${n}` },
    { kind: 'host', re: /(?<=\b(?:host(?:name)?|node|pod|worker) )[A-Za-z]\w*(?:\d|[.\-]\w)[\w.\-]*/gi,
      make: (n) => `host-${n}` },
    // Kubernetes-style worker names
    { kind: 'host', re: /\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?:worker|host|node|w)-\d+\b/gi, make: (n) => `host-w-${n}` },
  ];
  // A program's function name where JAX logs its compiles ("Compiling train_step
  // with ...", "Finished XLA compilation of jit(train_step)"): masked as its program
  // is (train_step -> program_1 beside jit_train_step -> jit_program_1), so the
  // history of a program that compiled, ran and was evicted survives the masking.
  const compiled = /(\bCompiling (?:module )?|\bFinished XLA compilation of |\bFinished tracing \+ transforming |\b(?:p?jit|pmap)\()([\w.<>-]+)/g;
  function mask(text) {
    const seen = new Map();
    const bare = new Map();  // train_step -> program_1
    let counter = 0;
    for (const p of patterns) {
      text = text.replace(p.re, (m) => {
        const key = p.kind + '\u0000' + m;
        if (!seen.has(key)) seen.set(key, p.make(++counter));
        const standIn = seen.get(key);
        const prefix = /^(?:p?jit|xmap|pmap)_/.exec(m);
        if (prefix && standIn.startsWith('jit_')) bare.set(m.slice(prefix[0].length), standIn.slice(4));
        return standIn;
      });
    }
    return text.replace(compiled, (m, lead, name) => (bare.has(name) ? lead + bare.get(name) : m));
  }
  globalThis.oomlensMask = mask;
})();
