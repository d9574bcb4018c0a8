#!/usr/bin/env bash
# Regenerates the Swift code that swift-openapi-generator 1.14.3 makes from openapi.yaml (with
# openapi-generator-config.yaml) into Tests/HeronOpenAPITests/Generated/, where it is committed
# (the generator's output replaces the folder's content whole).
#
#   Integrations/OpenAPI/regenerate.sh          # regenerate and overwrite the committed files
#   Integrations/OpenAPI/regenerate.sh --check  # regenerate into a temporary folder and fail
#                                               # unless it is byte-identical to the committed files
#
# The generator is built from its package (a debug build: several minutes the first time) in
# .build-generator/ beside this script, which .gitignore leaves out; later runs reuse it. CI
# never runs this: it only compiles the committed files against swift-openapi-runtime.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

check=0
case "${1:-}" in
    "") ;;
    --check) check=1 ;;
    *)
        echo "usage: regenerate.sh [--check]" >&2
        exit 2
        ;;
esac

generated="Tests/HeronOpenAPITests/Generated"
scratch="$here/.build-generator"
mkdir -p "$scratch"
# A package of its own whose only dependency is the generator, so its build stays out of this
# package's graph (and out of CI).
cat >"$scratch/Package.swift" <<'SWIFT'
// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "HeronOpenAPIGenerator",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator.git", exact: "1.14.3")
    ],
    targets: []
)
SWIFT

echo "regenerate.sh: building swift-openapi-generator 1.14.3 in $scratch" >&2
swift build --package-path "$scratch" --product swift-openapi-generator >"$scratch/build.log" 2>&1 || {
    tail -n 30 "$scratch/build.log" >&2
    echo "regenerate.sh: the generator did not build (full log: $scratch/build.log)" >&2
    exit 1
}
generator="$(swift build --package-path "$scratch" --show-bin-path)/swift-openapi-generator"

output=$(mktemp -d "${TMPDIR:-/tmp}/heron-openapi.XXXXXX")
trap 'rm -rf "$output"' EXIT
"$generator" generate --config openapi-generator-config.yaml --output-directory "$output" openapi.yaml >&2

# The generator writes Types.swift (split into Types+Components+….swift and so on) and
# Client.swift, as the modes ask; every file it writes is kept, and no other.
if [ "$check" = 1 ]; then
    if diff -ru "$generated" "$output" >"$scratch/check.diff"; then
        echo "regenerate.sh: $generated is up to date ($(ls "$output" | wc -l) files, byte-identical)" >&2
        exit 0
    fi
    echo "regenerate.sh: $generated differs from what the generator makes:" >&2
    head -n 60 "$scratch/check.diff" >&2
    exit 1
fi
rm -rf "$generated"
mkdir -p "$generated"
cp "$output"/*.swift "$generated/"
echo "regenerate.sh: wrote $(cd "$generated" && echo *.swift) to $generated" >&2
