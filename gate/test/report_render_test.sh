#!/usr/bin/env bash
# The gate's CI outputs are usable: JUnit XML validates, and the HTML report
# renders in headless Chromium with its three plots in the DOM.
# Usage: report_render_test.sh <ropecheck binary> <scratch dir>
set -euo pipefail
bin=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
"$bin" check --quiet --cases 8 --report "$dir/report.html" --junit "$dir/junit.xml" \
  --summary "$dir/summary.md" > "$dir/stdout.txt"
grep -q "Overall: PASS" "$dir/summary.md"
if command -v xmllint > /dev/null; then
  xmllint --noout "$dir/junit.xml"
fi
grep -q '<testsuite name="scalar_naive"' "$dir/junit.xml"
chrome=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$chrome" ]]; then
  echo "SKIP: chromium not installed (scripts/setup.sh installs it)"
  exit 77
fi
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$dir/profile")
timeout 120 "$chrome" "${flags[@]}" --dump-dom "file://$dir/report.html" > "$dir/dom.html" 2> "$dir/chrome.log"
for id in plot-budget plot-ulps plot-decay; do
  grep -q "id=\"$id\"><svg" "$dir/dom.html" || { echo "missing rendered plot $id"; exit 1; }
done
grep -q "ropecheck check: " "$dir/dom.html"
timeout 120 "$chrome" "${flags[@]}" --window-size=1200,1600 --screenshot="$dir/report.png" \
  "file://$dir/report.html" 2>> "$dir/chrome.log"
test -s "$dir/report.png"
echo "report rendered: $dir/report.png"
