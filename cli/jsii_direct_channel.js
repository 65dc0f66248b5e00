'use strict';
// jsii's kernel (lib/program.js, given as the only argument) serves its API on fd 3. jsii's own
// launcher provides fd 3 from a second Node.js process that relays the Python pipes, which puts an
// extra process hop in every call. Here the kernel runs in the process Python started
// (cli/jsii_runtime.py): fd 3 reads come from stdin, fd 3 writes go to stdout, and whatever the
// JavaScript side prints reaches jsii's stderr reader as the JSON lines the launcher sends
// ({"stdout": base64} or {"stderr": base64}), so stdout carries API responses only.
const fs = require('fs');
const { Writable } = require('stream');

const API_FD = 3;
const { readSync, writeSync } = fs;
const pause = new Int32Array(new SharedArrayBuffer(4));

function writeAll(fd, bytes) {
  for (let offset = 0; offset < bytes.length; ) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

function forward(name, bytes) {
  writeAll(2, Buffer.from(`${JSON.stringify({ [name]: bytes.toString('base64') })}\n`));
  return bytes.length;
}

function asBytes(data, offsetOrPosition, lengthOrEncoding) {
  if (typeof data === 'string') {
    return Buffer.from(data, typeof lengthOrEncoding === 'string' ? lengthOrEncoding : 'utf8');
  }
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const offset = offsetOrPosition ?? 0;
  return view.subarray(offset, offset + (lengthOrEncoding ?? view.length - offset));
}

fs.readSync = function readApiFromStdin(fd, ...rest) {
  return readSync.call(this, fd === API_FD ? 0 : fd, ...rest);
};
fs.writeSync = function writeApiToStdout(fd, data, ...rest) {
  if (fd === API_FD) return writeSync.call(this, 1, data, ...rest);
  if (fd === 1 || fd === 2) return forward(fd === 1 ? 'stdout' : 'stderr', asBytes(data, ...rest));
  return writeSync.call(this, fd, data, ...rest);
};

// Replaced before anything opens them: a stream on fd 1 would interleave with API responses.
for (const name of ['stdout', 'stderr']) {
  const stream = new Writable({
    write(chunk, encoding, done) {
      forward(name, Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding));
      done();
    },
  });
  stream.isTTY = false;
  Object.defineProperty(process, name, { configurable: true, enumerable: true, value: stream });
}

require(process.argv[2]);
