'use strict';
// Runs jsii's kernel (lib/program.js, argv[2]) in this process. The kernel serves its API on fd 3,
// which jsii's own launcher provides from a second Node.js process relaying the Python pipes: an
// extra process hop in every call. Python (accelerator/runtime.py) hands this process the API socket
// instead, as file descriptor argv[3]; the kernel's fd 3 reads and writes go to it. Standard output
// and error stay plain pipes, so console output, the kernel's own errors and child processes that
// inherit stdio never reach the API stream. Options after it: `--code-cache=<dir>`, the directory of
// the V8 code cache the kernel's modules compile with (code_cache.js); `--rewrites`, the kernel bundle
// compiles with two of its statements rewritten (kernel_rewrites.js).
const fs = require('fs');

const KERNEL_FD = 3;
const api = Number(process.argv[3]);
if (!Number.isInteger(api) || api < 0) {
  throw new Error(`direct_channel.js: expected the API socket's file descriptor, got ${process.argv[3]}`);
}

const { readSync, writeSync } = fs;
fs.readSync = function readApi(fd, ...rest) {
  return readSync.call(this, fd === KERNEL_FD ? api : fd, ...rest);
};
fs.writeSync = function writeApi(fd, ...rest) {
  return writeSync.call(this, fd === KERNEL_FD ? api : fd, ...rest);
};

const options = process.argv.slice(4);
const cache = options.find((option) => option.startsWith('--code-cache='));
if (cache) {
  require('./code_cache.js').install(cache.slice('--code-cache='.length));
}
const program = require.resolve(process.argv[2]);
if (options.includes('--rewrites')) {
  require('./kernel_rewrites.js').install(program); // after the cache: entries are of the rewritten text
}

require(program);
