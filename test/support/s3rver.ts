import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

/** s3rver's built-in credentials. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * An s3rver on 127.0.0.1 (objects in a temp folder) with one fresh bucket, and
 * the SAOLA_S3_* settings that point a Saola process at it.
 */
export async function startS3rverBucket(): Promise<{ endpoint: string; bucket: string; env: Record<string, string>; close(): Promise<void> }> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const bucket = `saola-${randomUUID().slice(0, 8)}`;
  const admin = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3RVER_CREDENTIALS });
  await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  admin.destroy();
  return {
    endpoint,
    bucket,
    env: {
      SAOLA_S3_BUCKET: bucket,
      SAOLA_S3_ENDPOINT: endpoint,
      SAOLA_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      SAOLA_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      SAOLA_S3_FORCE_PATH_STYLE: 'true',
    },
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
