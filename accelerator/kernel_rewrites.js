'use strict';
// Two statements of jsii's kernel bundle (lib/program.js, jsii 1.142.0) rewritten as the kernel
// compiles, each for a cost the commands measured. The statements are in kernel_rewrites.json: Python
// (accelerator/runtime.py) checks that the bundle holds each exactly once before it asks for them
// (--rewrites), and otherwise prints the accelerator's warning line and leaves the kernel as shipped.
//
// 1. `computeSerializationType` built its assertion's message on every call, whether or not the
//    assertion failed: `util.inspect` of the type reference of each value its memo had not seen,
//    about a quarter of the kernel's CPU while `make render` builds charts. jsii made the
//    serializer's other error context lazy (aws/jsii#5162); this one builds its message only when
//    the same condition fails, and throws the same message.
// 2. `serializationType` kept every answer in a WeakMap keyed by the type reference (also
//    aws/jsii#5162). The serializer makes a fresh reference for every array element, map value and
//    union member it visits, so the map takes millions of short-lived keys: rendering 10,000 team
//    runs, the kernel's CPU per run grew from 5,000 runs on (36 s of kernel CPU without the memo
//    against 108 s with it, 590 MB of memory against 1.35 GB). Without its memo the function
//    computes its answer as before aws/jsii#5162, from the same reference: the same answer, and
//    cheaper than the lookup once its message (1.) is not built.
const Module = require('module');

const REWRITES = require('./kernel_rewrites.json'); // each { name, shipped, rewritten }

// `source` with each statement of REWRITES that it holds exactly once rewritten; `applied` counts them.
function rewrite(source) {
  let applied = 0;
  for (const { shipped, rewritten } of REWRITES) {
    const at = source.indexOf(shipped);
    if (at === -1 || source.indexOf(shipped, at + 1) !== -1) continue;
    source = source.slice(0, at) + rewritten + source.slice(at + shipped.length);
    applied++;
  }
  return { source, applied };
}

// Rewrite `program` (the kernel bundle's resolved path) when it is compiled; other modules compile as before.
function install(program) {
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileKernel(content, filename, format) {
    const text = filename === program && typeof content === 'string' ? rewrite(content).source : content;
    return compile.call(this, text, filename, format);
  };
}

module.exports = { REWRITES, install, rewrite };
