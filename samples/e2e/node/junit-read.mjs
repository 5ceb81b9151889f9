// Reads a JUnit XML file with junit2json, a JUnit reader from npm, and prints what it found as
// JSON: run by samples/e2e/octotest_server_test.go on the report octo test --report wrote.
import { readFile } from 'node:fs/promises';
import { parse } from 'junit2json';

const [file] = process.argv.slice(2);
if (!file) {
  console.error('usage: node junit-read.mjs FILE');
  process.exit(2);
}
const report = await parse(await readFile(file, 'utf8'));
console.log(JSON.stringify(report));
