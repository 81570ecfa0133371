/** A running test S3 server (scripts/s3-test-server.mjs). */
export interface S3TestServer {
  /** STORAGE_URL for the app: `s3://<bucket>`. */
  url: string;
  /** S3_ENDPOINT: `http://127.0.0.1:<port>`. */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Where s3rver keeps the objects. */
  directory: string;
  /** STORAGE_URL, S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_FORCE_PATH_STYLE. */
  env: Record<'STORAGE_URL' | 'S3_ENDPOINT' | 'S3_REGION' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'S3_FORCE_PATH_STYLE', string>;
  stop(): Promise<void>;
}

export function startS3Server(options?: { port?: number; host?: string; bucket?: string; directory?: string }): Promise<S3TestServer>;
