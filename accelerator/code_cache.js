'use strict';
// A V8 code cache for the CommonJS modules jsii's kernel loads: jsii's own kernel bundle,
// aws-cdk-lib, cdk8s and their dependencies (about 900 files for a synthesis).
//
// Node.js 20 compiles every module from source in every process, and V8 compiles each function
// lazily on its first call, so a short command spends a good part of its kernel time compiling the
// same code again. Here each module is compiled with the bytecode a previous process left for it,
// and at exit every module that had none gets V8's cache data *after* running
// (`script.createCachedData()`), which holds the functions compiled by then, not only the top level
// (https://nodejs.org/api/vm.html#scriptcreatecacheddata).
//
// An entry is keyed by the SHA-1 of the module's file name (scriptName) and source: V8's own check of
// cache data compares the source's length, not its text, so the key is what ties an entry to the code
// it was made from.
// Each entry starts with the CRC-32 of its data: release builds of V8 do not checksum cache data,
// and a damaged entry is dropped here instead of reaching V8. V8 still rejects data from another
// V8 version or other flags (the module then compiles from source and its entry is rewritten), and
// entries live in a directory per Node.js version, architecture and V8 flags
// (`v8.cachedDataVersionTag()`), so kernels started with other flags do not rewrite each other's.
// Entries are written to a temporary name and renamed, so a process never reads another's
// half-written entry; when the cache grows past MAX_BYTES, the other directories go, then the
// entries the writing process did not use. Any failure to read or write the cache leaves the module
// compiled from source, as without it. What only Node.js's own loader handles (ECMAScript modules,
// dynamic `import()`, a source V8 cannot compile as a script) compiles as Node.js compiles it, uncached.
const crypto = require('crypto');
const fs = require('fs');
const Module = require('module');
const path = require('path');
const v8 = require('v8');
const vm = require('vm');
const zlib = require('zlib');

const MAX_BYTES = 256 * 1024 * 1024;
const CHECKSUM_BYTES = 4;
const REFRESH_SHARE = 1 / 8;
const EXIT_BUDGET_MS = 2000; // the writes a cold cache needs at exit (about 1 ms a module); the rest next time

// `stats` counts this process's hits, misses, rejected entries, modules compiled by Node.js itself
// (`uncached`) and, at exit, entries written and entries refreshed (grownEntries).
function install(root, { maxBytes = MAX_BYTES, refreshShare = REFRESH_SHARE } = {}) {
  const stats = { hits: 0, misses: 0, rejected: 0, written: 0, refreshed: 0, uncached: 0 };
  const missing = missingInternals();
  if (missing.length > 0) {
    // Such as Node.js before 20.15 (no zlib.crc32): no cache, said in the accelerator's one line
    // (accelerator/__init__.py), and every module compiles as Node.js compiles it.
    process.stderr.write(
      `warning: accelerator: code-cache does not apply to Node.js ${process.version} (no ${missing.join(', no ')}); using the stock jsii path\n`,
    );
    return stats;
  }
  const dir = path.join(root, `${process.version}-${process.arch}-${v8.cachedDataVersionTag()}`);
  const used = new Set();
  const pending = [];
  const refreshing = [];
  const nodeCompile = Module.prototype._compile;

  Module.prototype._compile = function compileWithCodeCache(content, filename, format) {
    const source = sourceText(content);
    if (format === 'module' || source.includes('import(')) {
      stats.uncached++;
      return nodeCompile.call(this, content, filename, format);
    }
    const key = entryKey(filename, source);
    const entry = path.join(dir, key);
    const stored = readEntry(entry); // undefined: none; null: damaged
    const cachedData = stored ?? undefined;
    let script;
    try {
      // The wrapper's length back off line 1's columns, as Node.js reports them (minified code is all line 1).
      script = new vm.Script(Module.wrap(source), { filename, cachedData, columnOffset: -Module.wrapper[0].length });
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      stats.uncached++; // such as ECMAScript module syntax in a .js file, which Node.js's loader detects
      return nodeCompile.call(this, content, filename, format);
    }
    used.add(key);
    if (cachedData === undefined) {
      stats.misses++;
      pending.push([entry, script, stored === null]);
    } else if (script.cachedDataRejected) {
      stats.rejected++;
      pending.push([entry, script, true]);
    } else {
      stats.hits++;
      if (Math.random() < refreshShare) refreshing.push([entry, script, cachedData.length]);
    }
    const module = this;
    return script
      .runInThisContext({ displayErrors: true })
      .call(module.exports, module.exports, requireFrom(module), module, filename, path.dirname(filename));
  };

  process.on('exit', () => {
    // Registered before jsii's kernel loads: nothing here may throw, or jsii's own exit work is skipped.
    try {
      const deadline = Date.now() + EXIT_BUDGET_MS;
      // A miss another process has written since (processes started together all miss) is left to it.
      const missing = pending.filter(([entry, , replace]) => replace || !fs.existsSync(entry));
      const made = missing.map(([entry, script]) => [entry, () => script.createCachedData()]);
      stats.written = writeEntries(dir, made, deadline);
      stats.refreshed = writeEntries(dir, grownEntries(refreshing), deadline);
      if (stats.written + stats.refreshed > 0) prune(root, dir, used, maxBytes);
    } catch {
      // the cache stays as it is
    }
  });
  return stats;
}

// The Node.js internals the cache replaces or calls, by name, that this Node.js lacks: the loader's
// compile step, its CommonJS wrapper, V8's cache data and the entries' checksum.
function missingInternals() {
  const checks = [
    ['zlib.crc32', typeof zlib.crc32 === 'function'],
    ['Module.prototype._compile', typeof Module.prototype._compile === 'function'],
    ['Module.wrap', typeof Module.wrap === 'function'],
    ['Module.wrapper', Array.isArray(Module.wrapper) && typeof Module.wrapper[0] === 'string'],
    ['vm.Script.prototype.createCachedData', typeof vm.Script.prototype.createCachedData === 'function'],
  ];
  return checks.filter(([, present]) => !present).map(([name]) => name);
}

// The name of the entry for module `filename` compiled from `source` (see the top of this file).
function entryKey(filename, source) {
  return crypto.createHash('sha1').update(scriptName(filename)).update('\0').update(source).digest('hex');
}

// V8's cache data carries the script's file name, which stack traces then show, and aws-cdk-lib
// tells its own frames from jsii's (whose directory it knows) by it: an entry is only used for a
// file of the same name. Within a package the name is the part from `node_modules/` on, since each
// kernel links the packages into a folder of its own (a hit's frames name an earlier kernel's
// folder, and are told apart as the same package's); the kernel's own program.js runs from one
// folder per jsii release (accelerator/runtime.py).
function scriptName(filename) {
  // The first `node_modules/` is the kernel's own: a package bundled inside another keeps its parent's name.
  const index = filename.indexOf(`${path.sep}node_modules${path.sep}`);
  return index === -1 ? filename : filename.slice(index + 1);
}

// What Node.js itself compiles: a byte order mark dropped, and a hashbang line (valid only at the
// very start of a script, which the module wrapper is not) kept as a comment of the same length.
function sourceText(content) {
  const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  return text.startsWith('#!') ? `//${text.slice(2)}` : text;
}

// The `require` Node.js gives a module (lib/internal/modules/helpers.js, makeRequireFunction).
function requireFrom(module) {
  function require(id) {
    return module.require(id);
  }
  require.resolve = (request, options) => Module._resolveFilename(request, module, false, options);
  require.resolve.paths = (request) => Module._resolveLookupPaths(request, module);
  require.main = process.mainModule;
  require.extensions = Module._extensions;
  require.cache = Module._cache;
  return require;
}

function readEntry(entry) {
  let bytes;
  try {
    bytes = fs.readFileSync(entry);
  } catch {
    return undefined;
  }
  const data = bytes.subarray(CHECKSUM_BYTES);
  if (bytes.length <= CHECKSUM_BYTES || bytes.readUInt32LE(0) !== zlib.crc32(data)) return null;
  return data;
}

// An entry holds the functions compiled when it was written: one written by a process that ran
// little of a module makes every later process compile the rest again. A hit's data, made again at
// exit, replaces its entry when it has grown by a tenth; each process does this for a random share
// of its hits (about 20 ms for all of a synthesis's), so entries catch up within a few runs.
function grownEntries(refreshing) {
  const grown = [];
  for (const [entry, script, size] of refreshing) {
    try {
      const data = script.createCachedData();
      if (data.length > size * 1.1) grown.push([entry, () => data]);
    } catch {
      // left as it is
    }
  }
  return grown;
}

function writeEntries(dir, entries, deadline) {
  let written = 0;
  if (entries.length === 0) return 0;
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch {
    return 0;
  }
  for (const [entry, produce] of entries) {
    if (Date.now() > deadline) break;
    const temporary = `${entry}.${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`;
    try {
      const data = produce();
      const checksum = Buffer.alloc(CHECKSUM_BYTES);
      checksum.writeUInt32LE(zlib.crc32(data));
      fs.writeFileSync(temporary, Buffer.concat([checksum, data]));
      fs.renameSync(temporary, entry);
      written++;
    } catch {
      try {
        fs.rmSync(temporary, { force: true });
      } catch {
        // left for a later prune
      }
    }
  }
  return written;
}

function prune(root, dir, used, maxBytes) {
  try {
    // Other Node.js versions' entries (the kernel's runtime folders beside them stay).
    const others = fs.readdirSync(root).filter((name) => /^v\d/.test(name) && path.join(root, name) !== dir);
    const sizes = new Map(fs.readdirSync(dir).map((name) => [name, fileSize(path.join(dir, name))]));
    const ownBytes = [...sizes.values()].reduce((a, b) => a + b, 0);
    const otherBytes = others.map((name) => directorySize(path.join(root, name))).reduce((a, b) => a + b, 0);
    if (ownBytes + otherBytes <= maxBytes) return;
    for (const name of others) fs.rmSync(path.join(root, name), { force: true, recursive: true });
    if (ownBytes <= maxBytes) return;
    for (const name of sizes.keys()) {
      if (!used.has(name)) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    // another process pruned it first, or the directory is not ours to change: nothing to do
  }
}

function fileSize(file) {
  return fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
}

function directorySize(directory) {
  try {
    return fs.readdirSync(directory).reduce((total, name) => total + fileSize(path.join(directory, name)), 0);
  } catch {
    return 0;
  }
}

module.exports = { entryKey, install, MAX_BYTES };
