/**
 * Preloaded (`node --import`) into every model server the local model host starts. The host keeps
 * the server's stdin open as a pipe; when the host's process ends, however it ends (even killed
 * with SIGKILL, when no handler of its own can run), the pipe closes and the server shuts down
 * gracefully instead of living on as an orphan holding a port and CPU.
 */

/** A server that does not finish its graceful shutdown in this time exits anyway. */
const FORCED_EXIT_AFTER_MS = 5000;

process.stdin.on('end', () => {
  process.kill(process.pid, 'SIGTERM');
  setTimeout(() => {
    process.exit(1);
  }, FORCED_EXIT_AFTER_MS).unref();
});
process.stdin.resume();
// Watching stdin must not keep the server alive once it has closed everything else.
process.stdin.unref();
