import { parseAddress } from '../src/reader/pipeline/address.js';
for (const a of process.argv.slice(2)) console.log(JSON.stringify(parseAddress(a)));
