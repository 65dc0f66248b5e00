'use strict';
// jsii's kernel (lib/program.js, 1.142.0) builds one assertion message whether or not the assertion
// fails: `computeSerializationType` runs `util.inspect` on the type reference of every value it
// serializes that its memo has not seen, about a quarter of the kernel's time while `make render`
// builds charts. jsii 1.142.0 made the serializer's other error context lazy (aws/jsii#5162); this
// makes that one message lazy too, by rewriting the statement as the kernel module is compiled.
// The rewritten statement asserts the same condition and throws the same message. A release whose
// text differs gets no rewrite, and runs as jsii ships it.
const Module = require('module');

// [as jsii 1.142.0 ships it, with the message built only when the assertion fails]
const REWRITES = [
  [
    '(0,B.default)(null!=e,`Kernel error: expected type information, got ${(0,K.inspect)(e)}`)',
    '(null!=e||(0,B.default)(!1,`Kernel error: expected type information, got ${(0,K.inspect)(e)}`))',
  ],
];

// `source` with each statement of REWRITES that it holds exactly once rewritten; `applied` counts them.
function rewrite(source) {
  let applied = 0;
  for (const [eager, lazy] of REWRITES) {
    const at = source.indexOf(eager);
    if (at === -1 || source.indexOf(eager, at + 1) !== -1) continue;
    source = source.slice(0, at) + lazy + source.slice(at + eager.length);
    applied++;
  }
  return { source, applied };
}

// Rewrite `program` (the kernel bundle's path) when it is compiled; other modules compile as before.
function install(program) {
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileKernel(content, filename, format) {
    const text = filename === program && typeof content === 'string' ? rewrite(content).source : content;
    return compile.call(this, text, filename, format);
  };
}

module.exports = { REWRITES, install, rewrite };
