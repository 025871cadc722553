#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bad input of every kind is refused with exit 2 and a message naming the
# option or field and the bound: command-line values, config files of any
# type and content, report paths that are not files, and golden exports
# that are not what they claim. Usage: bad_input_test.sh ROPECHECK SMOKE_DIR
set -uo pipefail
bin=$1 smoke=$2
source "$(dirname "$0")/../../scripts/expect.sh"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
one=(check --impl scalar_naive --cases 6 --quiet)

# Command-line values (each was accepted before, or exited 105/106).
expect cases-negative 2 "--cases: must be an integer in \[1, 10000000\] \(got '-5'\)" -- "$bin" check --cases -5
expect case-negative 2 "--case: must be an integer in \[0, 9999999\] \(got '-1'\)" -- "$bin" check --case -1
expect case-beyond 2 "--case: must be in \[0, 120\) for suite quick \(got 120\)" -- "$bin" check --case 120
expect seed-negative 2 "--seed: must be an unsigned 64-bit integer or 'random' \(got '-1'\)" -- "$bin" check --seed -1
expect seed-too-big 2 "--seed: must be an unsigned 64-bit integer" -- "$bin" check --seed 18446744073709551616
expect impl-twice 2 "--impl: 'scalar_naive' is given twice" -- "$bin" check --impl scalar_naive --impl scalar_naive
expect summary-empty 2 "--summary: must name a file \(got an empty path\)" -- "$bin" check --summary ""
expect config-empty-path 2 "--config: must name a file" -- "$bin" check --config ""
expect timeout-nan 2 "--timeout: must be in \[0.01, 3600\] \(got 'nan'\)" -- "$bin" check --timeout nan
expect timeout-inf 2 "--timeout: must be in \[0.01, 3600\]" -- "$bin" golden verify --dir "$smoke" --timeout inf
expect memory-limit-negative 2 "--memory-limit: must be in \[0, 65536\]" -- "$bin" check --memory-limit -1
expect min-judged-zero 2 "--min-judged: must be an integer in \[1, 10000000\]" -- "$bin" check --min-judged 0
expect threads-exponent 2 "--threads: must be an integer in \[1, 256\] \(got '1e1'\)" -- "$bin" check --threads 1e1
expect suite-unknown 2 "--suite: must be quick, standard or exhaustive" -- "$bin" check --suite huge
expect unknown-option 2 "The following argument was not expected: --bogus" -- "$bin" check --bogus
expect no-subcommand 2 "A subcommand is required" -- "$bin"
expect expect-sha256-malformed 2 "--expect-sha256: must be 64 lowercase hex digits" -- \
  "$bin" golden verify --dir "$smoke" --expect-sha256 XYZ
expect export-format 2 "--format: must be safetensors, npy or json" -- "$bin" golden export --out "$t/x" --format csv
expect help 0 "Run the conformance gate" -- "$bin" check --help

# Config files of every type.
mkfifo "$t/fifo"
expect config-dev-zero 2 "--config /dev/zero: holds more than the limit of 1048576 bytes" -- "$bin" "${one[@]}" --config /dev/zero
expect config-directory 2 "--config $t: is a directory, not a file" -- "$bin" "${one[@]}" --config "$t"
expect config-missing 2 "cannot be opened: No such file" -- "$bin" "${one[@]}" --config "$t/none.json"
(sleep 1; printf '{"head_dim": 64, "rope_theta": 10000}' >"$t/fifo") &
expect config-fifo 0 "all: default\(base=10000\), head_dim 64" -- "$bin" "${one[@]}" --config "$t/fifo"
wait
: >"$t/empty.json"
expect config-empty 2 "--config $t/empty.json: json: is not valid JSON" -- "$bin" "${one[@]}" --config "$t/empty.json"
# Contents: bounds that keep the budget finite, required fields, one reading.
cfg() { printf '%s' "$2" >"$t/$1.json"; echo "$t/$1.json"; }
expect config-factor-huge 2 "factor: must be in \[0.001, 1000000\] \(got 1e\+308\)" -- \
  "$bin" "${one[@]}" --config "$(cfg f1 '{"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 1e308}}')"
expect config-factor-tiny 2 "factor: must be in \[0.001, 1000000\]" -- \
  "$bin" "${one[@]}" --config "$(cfg f2 '{"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 1e-308}}')"
expect config-theta-huge 2 "base: must be finite, > 1 and <= 1000000000000" -- \
  "$bin" "${one[@]}" --config "$(cfg f3 '{"head_dim": 64, "rope_theta": 1e308}')"
expect config-inv-freq-huge 2 "inv_freq\[1\]: must be in \[0, 10000\]" -- \
  "$bin" "${one[@]}" --config "$(cfg f4 '{"ropecheck_config": 1, "head_dim": 4, "scheme": "explicit", "inv_freq": [1, 1e308]}')"
expect config-factor-missing 2 "rope_scaling.factor: missing \(the yarn scheme needs its scaling factor\)" -- \
  "$bin" "${one[@]}" --config "$(cfg f5 '{"head_dim": 64, "rope_scaling": {"type": "yarn", "original_max_position_embeddings": 4096}}')"
expect config-duplicate-key 2 "head_dim: appears twice in one object" -- \
  "$bin" "${one[@]}" --config "$(cfg f6 '{"head_dim": 64, "head_dim": 128}')"
printf '{"head_dim": 64}\0' >"$t/nul.json"
expect config-nul 2 "json: holds a NUL byte at offset 16" -- "$bin" "${one[@]}" --config "$t/nul.json"
expect config-empty-scaling 2 "rope_scaling.rope_type: missing" -- \
  "$bin" "${one[@]}" --config "$(cfg f7 '{"head_dim": 64, "rope_scaling": {}}')"
expect config-yarn-below-one 2 "factor: must be >= 1 for yarn \(got 0.5\)" -- \
  "$bin" "${one[@]}" --config "$(cfg f8 '{"head_dim": 64, "rope_scaling": {"type": "yarn", "factor": 0.5, "original_max_position_embeddings": 4096}}')"
expect config-bare-rope-scaling 0 "it states no head shape, so every case keeps its own" -- \
  "$bin" "${one[@]}" --config "$(cfg f9 '{"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}')"

# golden export --config reads the file as check --config does
# (cli/config_option.h): the same refusal, word for word, and the same
# account of what it read.
for c in /dev/zero "$t" "$t/f5.json" "$t/f6.json" "$t/nul.json"; do
  want=$("$bin" "${one[@]}" --config "$c" 2>&1 | grep '^error: --config')
  got=$("$bin" golden export --quiet --out "$t/gx" --config "$c" 2>&1)
  rc=$?
  if [[ $rc -eq 2 && -n $want && $got == "$want" ]]; then echo "ok   golden-config-same-message: $got"; else
    echo "FAIL golden-config-same-message: exit $rc, '$got' where check says '$want'"; fails=$((fails + 1)); fi
done
expect golden-config-says-what-it-read 0 "config $t/f9.json:.*" -- \
  "$bin" golden export --quiet --out "$t/gx" --config "$t/f9.json"

# Report paths: a symlink is written through; a FIFO, a directory or a
# device is refused, never replaced.
: >"$t/target.md"
ln -s "$t/target.md" "$t/link.md"
expect summary-through-symlink 0 "Overall: PASS" -- "$bin" "${one[@]}" --summary "$t/link.md"
if [[ -L $t/link.md ]] && grep -q "Overall: PASS" "$t/target.md"; then echo "ok   symlink-kept: written through"; else
  echo "FAIL symlink-kept: the link was replaced or its target not written"; fails=$((fails + 1)); fi
expect summary-fifo 2 "$t/fifo: is a FIFO, not a regular file; refusing to replace it" -- "$bin" "${one[@]}" --summary "$t/fifo"
expect junit-directory 2 "$t: is a directory, not a regular file" -- "$bin" "${one[@]}" --junit "$t"
expect report-device 2 "/dev/null: is a character device, not a regular file" -- "$bin" "${one[@]}" --report /dev/null
[[ -p $t/fifo && -c /dev/null ]] || { echo "FAIL: a FIFO or /dev/null was replaced"; fails=$((fails + 1)); }

# Golden exports: pinned by SHA256SUMS, which must exist.
cp -r "$smoke" "$t/export"
pin=$(sha256sum "$t/export/SHA256SUMS" | cut -d' ' -f1)
expect golden-pinned 0 "PASS: 0 failing case" -- "$bin" golden verify --dir "$t/export" --impl scalar_naive --expect-sha256 "$pin"
expect golden-pin-mismatch 2 "SHA256SUMS: sha256: is $pin, not the pinned 0{64}" -- \
  "$bin" golden verify --dir "$t/export" --impl scalar_naive --expect-sha256 "$(printf '0%.0s' {1..64})"
rm "$t/export/SHA256SUMS"
expect golden-no-sums 2 "SHA256SUMS: file: missing" -- "$bin" golden verify --dir "$t/export" --impl scalar_naive
exit $((fails > 0))
