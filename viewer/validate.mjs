// Validates glTF files with the Khronos glTF-Validator (from the npm registry): prints one JSON
// line per file with its counts of errors, warnings and infos, and the first messages.
// Usage: node validate.mjs FILE.glb...
import { readFileSync } from "node:fs";
import validator from "gltf-validator";

for (const path of process.argv.slice(2)) {
  const report = await validator.validateBytes(new Uint8Array(readFileSync(path)));
  const issues = report.issues;
  const messages = issues.messages.slice(0, 8).map((m) => `${m.code}: ${m.message} ${m.pointer ?? ""}`);
  console.log(JSON.stringify({ path, errors: issues.numErrors, warnings: issues.numWarnings, infos: issues.numInfos, messages }));
}
