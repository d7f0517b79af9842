// Preloaded (`node --require`) into an Atrium server the peers harness runs on another Node
// than the one node_modules was built for: better-sqlite3's addon is loaded from
// BENCH_SQLITE_ADDON (built for that Node) instead, so node_modules is never written to.
const addon = process.env.BENCH_SQLITE_ADDON;
const dlopen = process.dlopen;
process.dlopen = function (module, filename, ...rest) {
  return dlopen.call(this, module, addon && filename.endsWith("better_sqlite3.node") ? addon : filename, ...rest);
};
