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
    // host= / hostname: / pod/ / node fields, and Kubernetes-style worker names
    { kind: 'host', re: /(?<=\b(?:host(?:name)?|node|pod|worker)[=:/ ]\s*)[A-Za-z][\w.\-]*/gi, make: (n) => `host-${n}` },
    { kind: 'host', re: /\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?:worker|host|node|w)-\d+\b/gi, make: (n) => `host-w-${n}` },
  ];
  function mask(text) {
    const seen = new Map();
    let counter = 0;
    for (const p of patterns) {
      text = text.replace(p.re, (m) => {
        const key = p.kind + '\u0000' + m;
        if (!seen.has(key)) seen.set(key, p.make(++counter));
        return seen.get(key);
      });
    }
    return text;
  }
  globalThis.oomlensMask = mask;
})();
