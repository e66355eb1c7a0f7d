#!/usr/bin/env bash
# Record the reference implementation's verdict on every root program of the
# corpus into reference.tsv (`<file>\t<verdict>`), which tests/corpus.rs reads
# (CI does not have the reference).
#
# verdict: `ok` (exit 0), the first error code (`E051`, `F001`, ...),
# `ParseError` for a parse or lex error (printed without a code), `crash` for a
# Python traceback, `unknown` for anything else.
#
# Root programs are the *.strata files directly in tests/corpus/; files in
# subdirectories (lib/...) are only imported.
#
# Usage: tests/corpus/record-reference.sh [path/to/strata]
#        (default: $STRATA_REF or /opt/strata-ref/bin/strata)
set -euo pipefail

ref="${1:-${STRATA_REF:-/opt/strata-ref/bin/strata}}"
cd "$(dirname "$0")"
[ -x "$ref" ] || { echo "reference not found: $ref" >&2; exit 2; }

out=reference.tsv.tmp
: >"$out"
for f in *.strata; do
    set +e
    text="$(timeout 60 "$ref" check "$f" 2>&1)"
    rc=$?
    set -e
    if [ "$rc" -eq 0 ]; then
        verdict=ok
    elif grep -q '^Traceback' <<<"$text"; then
        verdict=crash
    elif line="$(grep -m1 -E '( ERROR( [EFW][0-9]{3})?|^error: [EFW][0-9]{3}): ' <<<"$text")"; then
        code="$(sed -nE 's/.*(ERROR |^error: )([EFW][0-9]{3}): .*/\2/p' <<<"$line")"
        verdict="${code:-ParseError}"
    else
        verdict=unknown
        echo "warning: $f: unrecognised reference output (exit $rc):" >&2
        echo "$text" | head -5 >&2
    fi
    printf '%s\t%s\n' "$f" "$verdict" >>"$out"
done
LC_ALL=C sort -o "$out" "$out"
mv "$out" reference.tsv
echo "recorded $(wc -l <reference.tsv) verdicts in $(pwd)/reference.tsv"
cut -f2 reference.tsv | sort | uniq -c | sort -rn
