#!/bin/sh
# gltf_validate.sh — the Khronos glTF Validator (npm package gltf-validator,
# pinned below) on a .gltf or .glb file; tests only, never part of marrow.
#
#   tests/tools/gltf_validate.sh FILE.glb
#
# Prints one line "errors N, warnings N, infos N, hints N" and then each
# error and warning ("  error CODE at POINTER: message"); exit 0 when the
# validator reports no error, 1 when it does, 2 when it cannot run.
# The package is installed on first use with npm, outside the repository:
# into $MARROW_TEST_TOOLS (default ${XDG_CACHE_HOME:-~/.cache}/marrow-test-tools)/gltf-validator;
# node and npm come from scripts/install-deps.sh --node.
set -u
VERSION=2.0.0-dev.3.10
file=${1:?usage: gltf_validate.sh FILE.gltf|FILE.glb}
dir=${MARROW_TEST_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/marrow-test-tools}/gltf-validator
here=$(cd "$(dirname "$0")/../.." && pwd)

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    "$here/scripts/install-deps.sh" --node >&2 || { echo "gltf_validate: node and npm are missing" >&2; exit 2; }
fi
if ! grep -q "\"version\": \"$VERSION\"" "$dir/node_modules/gltf-validator/package.json" 2>/dev/null; then
    mkdir -p "$dir" &&
    npm install --silent --no-audit --no-fund --no-save --prefix "$dir" "gltf-validator@$VERSION" >&2 ||
        { echo "gltf_validate: npm could not install gltf-validator@$VERSION into $dir" >&2; exit 2; }
fi

NODE_PATH="$dir/node_modules" node - "$file" <<'EOF'
const fs = require("fs");
const path = require("path");
const validator = require("gltf-validator");
const file = process.argv[2];
let bytes;
try { bytes = fs.readFileSync(file); } catch (e) { console.error("gltf_validate: " + e.message); process.exit(2); }
validator.validateBytes(new Uint8Array(bytes), {
    uri: path.basename(file),
    maxIssues: 0,
    externalResourceFunction: (uri) => new Promise((resolve, reject) => {
        fs.readFile(path.resolve(path.dirname(file), decodeURIComponent(uri)), (err, data) => err ? reject(err.toString()) : resolve(data));
    }),
}).then((r) => {
    const i = r.issues;
    console.log(`errors ${i.numErrors}, warnings ${i.numWarnings}, infos ${i.numInfos}, hints ${i.numHints}`);
    const names = ["error", "warning"];
    for (const m of i.messages)
        if (m.severity <= 1) console.log(`  ${names[m.severity]} ${m.code} at ${m.pointer || "-"}: ${m.message}`);
    process.exit(i.numErrors > 0 ? 1 : 0);
}).catch((e) => { console.error("gltf_validate: " + e); process.exit(2); });
EOF
