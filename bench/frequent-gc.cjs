// Preloaded into a gateway under memory measurement (with --expose-gc): collects garbage often,
// so peak RSS shows what the process holds rather than garbage the collector has not reached.
if (typeof global.gc === 'function') setInterval(() => global.gc(), 50).unref();
