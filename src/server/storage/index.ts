import { createLocalStorage } from './local-storage';
import { createS3Storage } from './s3-storage';
import type { Storage, StorageConfig } from './storage';

export type { ObjectInfo, Storage, StorageConfig, StoredObject } from './storage';
export { isStorageKey } from './storage';

/** The upload store the configuration names (STORAGE_URL; docs/configuration.md). */
export function createStorage(config: StorageConfig): Storage {
  return config.kind === 's3' ? createS3Storage(config) : createLocalStorage(config.dir);
}
