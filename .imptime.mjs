const t0 = performance.now(); const c0 = process.cpuUsage();
for (const m of process.argv.slice(2)) { const t = performance.now(); await import(m.startsWith("/")||m.startsWith(".") ? new URL(m, "file:///work/wt-i25-start/").href : m); console.log(m, (performance.now() - t).toFixed(1), "ms"); }
const c = process.cpuUsage(c0); console.log("total", (performance.now() - t0).toFixed(1), "cpu", ((c.user + c.system) / 1000).toFixed(0), "rss", (process.memoryUsage().rss / 2**20).toFixed(1), "heap", (process.memoryUsage().heapUsed / 2**20).toFixed(1));
