// Reads cargo's messages (`--message-format=json-render-diagnostics`) from stdin and
// fails if the build compiled a package other than those named: after the tests' build,
// the host's build with and without Firestore should find every dependency built. One
// that is compiled again was given other features by one of the builds (a dev-dependency
// or the Firestore client turning one on), and every switch between the builds, in CI
// and for a contributor between scripts/dev and scripts/test, pays for it and for the
// host crate again.
import { createInterface } from "node:readline";

const expected = new Set(process.argv.slice(2));
const unexpected = new Set();

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.startsWith("{")) continue;
  const message = JSON.parse(line);
  if (message.reason !== "compiler-artifact" || message.fresh) continue;
  const pkg = packageVersion(message.package_id);
  if (!expected.has(pkg.slice(0, pkg.lastIndexOf("@")))) unexpected.add(pkg);
}

if (unexpected.size > 0) {
  console.error(
    `This build compiled ${[...unexpected].sort().join(", ")} again, which the build before ` +
      "it had compiled with other features. Ask for the features the other build turns on in " +
      "server/Cargo.toml (the list after the card's crates; compare `cargo tree -e " +
      "features` of the two builds), so both use one build of each.",
  );
  process.exit(1);
}

/** `name@1.0.0` from a package id: `registry+…#name@1.0.0`, or `path+file:///…/name#1.0.0`. */
function packageVersion(id) {
  const hash = id.lastIndexOf("#");
  const fragment = id.slice(hash + 1);
  return fragment.includes("@") ? fragment : `${id.slice(0, hash).split("/").pop()}@${fragment}`;
}
