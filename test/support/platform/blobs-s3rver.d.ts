// The parts of s3rver (an in-process S3 stand-in, JavaScript only) the S3 blob tests use.
declare module 's3rver' {
  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    configureBuckets?: { name: string; configs?: string[] }[];
  }
  class S3rver {
    constructor(options?: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    /** Set by run(). */
    httpServer: import('node:http').Server;
    close(): Promise<void>;
  }
  export default S3rver;
}
