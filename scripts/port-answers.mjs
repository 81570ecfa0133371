// Whether something accepts TCP connections on host:port (1 s timeout): used to find PostgreSQL,
// Redis and free ports before the cluster test starts.
import net from 'node:net';

/** @param {string} host @param {number} port @returns {Promise<boolean>} */
export const portAnswers = (host, port) => new Promise((resolve) => {
  const socket = net.connect({ host, port, timeout: 1000 }, () => {
    socket.destroy();
    resolve(true);
  });
  socket.on('error', () => resolve(false));
  socket.on('timeout', () => {
    socket.destroy();
    resolve(false);
  });
});
