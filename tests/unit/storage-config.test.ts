import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStorage, readConfig } from '../../src/server/config';
import { isStorageKey } from '../../src/server/storage';

describe('STORAGE_URL and S3_* settings', () => {
  it('keeps the local folder by default (UPLOAD_DIR or DATA_DIR/uploads), as before', () => {
    expect(readConfig({ DATA_DIR: '/srv/k' }).storage).toEqual({ kind: 'local', dir: '/srv/k/uploads' });
    expect(readConfig({ UPLOAD_DIR: '/mnt/up' }).storage).toEqual({ kind: 'local', dir: '/mnt/up' });
    expect(readConfig({ STORAGE_URL: '', UPLOAD_DIR: '/mnt/up' }).storage).toEqual({ kind: 'local', dir: '/mnt/up' });
  });

  it('takes a folder from file: URLs, absolute or relative, and uses it as the upload folder', () => {
    expect(parseStorage({ STORAGE_URL: 'file:/srv/uploads' }, '/x')).toEqual({ kind: 'local', dir: '/srv/uploads' });
    expect(parseStorage({ STORAGE_URL: 'file:///srv/my%20uploads' }, '/x')).toEqual({ kind: 'local', dir: '/srv/my uploads' });
    expect(parseStorage({ STORAGE_URL: 'file:data/up' }, '/x')).toEqual({ kind: 'local', dir: path.resolve('data/up') });
    expect(readConfig({ STORAGE_URL: 'file:/srv/uploads' }).uploadDir).toBe('/srv/uploads');
    expect(() => parseStorage({ STORAGE_URL: 'file:' }, '/x')).toThrow(/needs a folder/);
  });

  it('reads an S3 bucket with its prefix, endpoint, region, keys and path style', () => {
    expect(parseStorage({
      STORAGE_URL: 's3://kindred-uploads/prod/eu/', S3_ENDPOINT: 'http://minio:9000', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret',
    }, '/x')).toEqual({
      kind: 's3', bucket: 'kindred-uploads', prefix: 'prod/eu/', endpoint: 'http://minio:9000', region: 'us-east-1',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' }, forcePathStyle: true,
    });
    // AWS itself: virtual-hosted style, the SDK's own credentials (instance role, AWS_* variables).
    expect(parseStorage({ STORAGE_URL: 's3://kindred-uploads', S3_REGION: 'eu-central-1' }, '/x')).toEqual({
      kind: 's3', bucket: 'kindred-uploads', prefix: '', endpoint: null, region: 'eu-central-1', credentials: null, forcePathStyle: false,
    });
    expect(parseStorage({ STORAGE_URL: 's3://bk1', S3_ENDPOINT: 'https://r2.example', S3_FORCE_PATH_STYLE: '0' }, '/x')).toMatchObject({ forcePathStyle: false });
    expect(parseStorage({ STORAGE_URL: 's3://bk1', S3_FORCE_PATH_STYLE: 'true' }, '/x')).toMatchObject({ forcePathStyle: true });
  });

  it('refuses settings that cannot work, with the variable named', () => {
    expect(() => parseStorage({ STORAGE_URL: 'gs://bucket' }, '/x')).toThrow(/STORAGE_URL must be/);
    expect(() => parseStorage({ STORAGE_URL: 's3://' }, '/x')).toThrow(/STORAGE_URL must be/);
    expect(() => parseStorage({ STORAGE_URL: 's3://Bad_Bucket' }, '/x')).toThrow(/STORAGE_URL must be/);
    // Bucket names have 3 to 63 characters.
    expect(() => parseStorage({ STORAGE_URL: 's3://b1' }, '/x')).toThrow(/STORAGE_URL must be/);
    expect(() => parseStorage({ STORAGE_URL: 's3://bk1', S3_ACCESS_KEY_ID: 'id' }, '/x')).toThrow(/go together/);
    expect(() => parseStorage({ STORAGE_URL: 's3://bk1', S3_SECRET_ACCESS_KEY: 's' }, '/x')).toThrow(/go together/);
    expect(() => parseStorage({ STORAGE_URL: 's3://bk1', S3_ENDPOINT: 'minio:9000' }, '/x')).toThrow(/S3_ENDPOINT/);
    expect(() => parseStorage({ STORAGE_URL: 's3://bk1', S3_FORCE_PATH_STYLE: 'yes' }, '/x')).toThrow(/S3_FORCE_PATH_STYLE/);
  });
});

describe('storage keys', () => {
  it('accepts the names the app stores and nothing that could leave the store', () => {
    for (const key of ['avatars/12.svg', 'photos/12/0a1b2c-thumb.webp', 'photos/3/demo-00ff.svg', 'chat/ab12.webp']) expect(isStorageKey(key)).toBe(true);
    for (const key of ['', '/a.webp', 'a/../b.webp', '..', './a.webp', 'a//b.webp', 'a/.env', 'a\\b.webp', 'a b.webp', 'a/b.webp\0', `${'a/'.repeat(9)}b.webp`]) {
      expect(isStorageKey(key)).toBe(false);
    }
  });
});
