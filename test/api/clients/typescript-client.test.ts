// The TypeScript client's own tests (clients/typescript/test), run by `npm test` with the rest.
import '../../../clients/typescript/test/client.test.js';
import '../../../clients/typescript/test/ekyc.test.js';
