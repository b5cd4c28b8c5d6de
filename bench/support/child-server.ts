import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How every bench server child serves: on a loopback port of the system's choosing, printed as one
 * JSON line `{ port }` for the parent (child-process.ts) to read; keep-alive sockets held for a
 * minute, so the clients measure requests rather than reconnections; SIGTERM closes every
 * connection and exits.
 */
export function serveBenchChild(server: Server): void {
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    console.log(JSON.stringify({ port: (server.address() as AddressInfo).port }));
  });
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
