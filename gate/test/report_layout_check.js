// What a person sees in an HTML report (the gate's, bench's), checked in
// the rendered page (report_render_test.sh appends this to a copy of the
// report and reads the result from --dump-dom): the legend of every plot
// clear of its labels and of its other entries and inside the plot, every
// label clear of every other, the tables real sortable tables that sort,
// and on a failing run the failures first (the gate's each with its first
// wrong element and a reproduce line to copy).
(function () {
  var problems = [];
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  var overlap = function (a, b) {
    return a.width > 0 && b.width > 0 && a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
           a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  };
  var plots = document.querySelectorAll('.plot svg');
  plots.forEach(function (svg) {
    var name = svg.parentNode.id, box = svg.getBoundingClientRect();
    if (!(box.width > 0 && box.height > 0)) problems.push(name + ': not rendered');
    var labels = Array.prototype.map.call(svg.querySelectorAll('.label'), function (e) {
      return {what: 'label "' + e.textContent + '"', r: e.getBoundingClientRect()};
    });
    var legend = Array.prototype.map.call(svg.querySelectorAll('.legend-item'), function (e) {
      return {what: 'legend "' + e.querySelector('text').textContent + '"', r: e.getBoundingClientRect()};
    });
    legend.forEach(function (l) {
      if (l.r.left < box.left || l.r.right > box.right + 0.5 || l.r.bottom > box.bottom + 0.5)
        problems.push(name + ': ' + l.what + ' outside the plot');
    });
    var all = labels.concat(legend);
    for (var i = 0; i < all.length; ++i)
      for (var j = i + 1; j < all.length; ++j)
        if (overlap(all[i].r, all[j].r)) problems.push(name + ': ' + all[i].what + ' overlaps ' + all[j].what);
  });
  var tables = document.querySelectorAll('table.sortable');
  tables.forEach(function (t) {
    if (!t.tHead || t.tHead.rows[0].cells.length < 2 || t.tBodies.length !== 1)
      problems.push('table ' + t.dataset.table + ' is not a table with a header');
  });
  document.querySelectorAll('pre').forEach(function (p) {
    if (p.textContent.indexOf('|---') >= 0) problems.push('a markdown table left in a <pre>');
  });
  // Sorting: the gate's kernels by "judged", bench's rows by "GB/s",
  // descending after two clicks.
  var gate = document.querySelector('h1').textContent.indexOf('ropecheck check') === 0;
  var kernels = document.querySelector(gate ? 'table[data-table="kernels"]' : 'table[data-table="rows"]');
  if (kernels) {
    var th = Array.prototype.filter.call(kernels.tHead.rows[0].cells, function (c) {
      return c.textContent === (gate ? 'judged' : 'GB/s');
    })[0];
    th.click();
    th.click();
    var v = Array.prototype.map.call(kernels.tBodies[0].rows, function (r) {
      return parseFloat(r.cells[th.cellIndex].textContent) || 0;
    });
    for (var k = 1; k < v.length; ++k) if (v[k] > v[k - 1]) problems.push('sorting the kernels by judged failed');
  } else {
    problems.push('no kernels (rows) table');
  }
  var failures = document.getElementById('failures');
  var verdict = document.querySelector('h1').textContent;
  var cards = document.querySelectorAll('.failure');
  if (verdict.indexOf('FAIL') >= 0) {
    var firstH2 = document.querySelector('h2');
    if (!failures || firstH2.parentNode !== failures) problems.push('the failures are not the first section');
    if (failures && (failures.compareDocumentPosition(document.getElementById('summary')) &
                     Node.DOCUMENT_POSITION_FOLLOWING) === 0)
      problems.push('the kernels table comes before the failures');
    if (gate) cards.forEach(function (c) {
      var code = c.querySelector('.copy code');
      if (c.querySelector('.copy') && !(code && code.textContent.indexOf('ropecheck check') === 0))
        problems.push('a failure without its reproduce line');
    });
    if (gate && !document.querySelector('.failure .copy')) problems.push('no failure with a reproduce line');
    if (gate && !document.querySelector('.failure table.element')) problems.push('no failure with its element');
    if (!cards.length) problems.push('a failing run lists no failure');
  } else if (failures || cards.length) {
    problems.push('failures shown on a passing run');
  }
  var out = document.createElement('pre');
  out.id = 'layout-check';
  out.textContent = 'plots ' + plots.length + ', tables ' + tables.length + ', failures ' + cards.length + ': ' +
                    (problems.length ? 'PROBLEMS\n' + problems.join('\n') : 'ok');
  document.body.appendChild(out);
})();
