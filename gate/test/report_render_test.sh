#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The gate's CI outputs are usable: JUnit XML validates, and the HTML report
# of a passing run and of a failing one (a mutant of the bug catalogue,
# beside a correct kernel), and bench's of a failing run, render in
# headless Chromium as a person should see them: report_layout_check.js,
# run in the rendered page, finds no legend over a label, real sortable
# tables, and on the failing runs the failures first (the gate's with their
# first wrong element and reproduce lines). Given DOCS_DIR, it also takes the
# screenshots of the gate's two (1200 px wide) into it (docs/report_pass.png,
# docs/report_fail.png: `report_render_test.sh BIN /tmp/r MUTANTS docs`);
# ctest leaves them out, each a Chromium start.
# Usage: report_render_test.sh <ropecheck binary> <scratch dir> <mutant plugin dir> [DOCS_DIR]
set -euo pipefail
bin=$1
dir=$2
mutants=$3
docs=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir"
"$bin" check --quiet --cases 8 --report "$dir/pass.html" --junit "$dir/junit.xml" \
  --summary "$dir/summary.md" > "$dir/stdout.txt"
grep -q "Overall: PASS" "$dir/summary.md"
if command -v xmllint > /dev/null; then
  xmllint --noout "$dir/junit.xml"
fi
grep -q '<testsuite name="scalar_naive"' "$dir/junit.xml"
# Exit 1: the mutant fails (scalar_naive beside it passes).
mutant=mutant_layout_swapped_above_4096
"$bin" check --quiet --cases 6 --impl scalar_naive --impl "$mutant" --plugin "$mutants/$mutant.so" \
  --report "$dir/fail.html" > "$dir/fail_stdout.txt" 2>&1 && { echo "$mutant passed"; exit 1; }
grep -q "Overall: FAIL" "$dir/fail_stdout.txt"
# bench --report (#35): a correct kernel timed beside one whose output is
# wrong (a named failure, no speed), on a small model and few calls.
"$bin" bench --config "$here/../../speed/test/small_model.json" --prefill-tokens 16 --decode-tokens 8 --dtype f32 \
  --layout half_split --repetitions 5 --quiet --plugin "$mutants/mutant_none.so" \
  --plugin "$mutants/mutant_layout_swapped.so" --report "$dir/bench.html" > "$dir/bench_stdout.txt" 2>&1 \
  && { echo "bench passed mutant_layout_swapped"; exit 1; }
grep -q "^| mutant_none |" "$dir/bench_stdout.txt"
chrome=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$chrome" ]]; then
  echo "SKIP: chromium not installed (scripts/setup.sh --tests installs it)"
  exit 77
fi
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$dir/profile" --window-size=1200,2000)
for run in pass fail bench; do
  # The check runs after the page's own scripts, on a copy of the page.
  { sed 's#</body></html>##' "$dir/$run.html"; printf '<script>\n'; cat "$here/report_layout_check.js"
    printf '</script>\n</body></html>\n'; } > "$dir/$run.check.html"
  timeout 120 "$chrome" "${flags[@]}" --dump-dom "file://$dir/$run.check.html" > "$dir/$run.dom.html" \
    2> "$dir/chrome.log"
  plots=(plot-budget plot-ulps plot-decay)
  if [[ $run == bench ]]; then plots=(plot-roofline); fi
  for id in "${plots[@]}"; do
    grep -q "id=\"$id\"><svg" "$dir/$run.dom.html" || { echo "$run: missing rendered plot $id"; exit 1; }
  done
  result=$(sed -n '/<pre id="layout-check">/,/<\/pre>/p' "$dir/$run.dom.html")
  result=${result#*<pre id=\"layout-check\">}
  echo "$run: ${result%</pre>*}"
  [[ "$result" == *": ok</pre>"* ]] || { echo "$run: the rendered report fails its layout check"; exit 1; }
  # Screenshots when asked for (a Chromium start each: CI's time).
  if [[ $run == bench || -z "$docs" ]]; then continue; fi
  timeout 120 "$chrome" "${flags[@]}" --hide-scrollbars --screenshot="$dir/report_$run.png" \
    "file://$dir/$run.html" 2>> "$dir/chrome.log"
  test -s "$dir/report_$run.png"
  cp "$dir/report_$run.png" "$docs/report_$run.png"
done
echo "reports rendered and checked${docs:+; screenshots in $docs}"
