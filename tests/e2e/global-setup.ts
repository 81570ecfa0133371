import { startMailServer } from './mail-server';

export default async function globalSetup() {
  const server = await startMailServer();
  return async () => new Promise<void>((resolve) => server.close(() => resolve()));
}
