/* Agentic Arena board: sortable tables, filters and search. Served from the site itself. */
(function () {
  "use strict";
  function cellValue(row, index, numeric) {
    var cell = row.cells[index];
    if (!cell) return numeric ? -Infinity : "";
    var raw = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent;
    return numeric ? parseFloat(raw) : raw.trim().toLowerCase();
  }
  function sortBy(table, th, index) {
    var numeric = th.getAttribute("data-type") === "num";
    var asc = th.getAttribute("aria-sort") !== "ascending";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
      var order = x < y ? -1 : x > y ? 1 : 0;
      return asc ? order : -order;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
  }
  function makeSortable(table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "ar-sort";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, th, index); });
    });
  }
  function applyFilters() {
    var board = document.getElementById("ar-board");
    var data = JSON.parse(document.getElementById("ar-filter-data").textContent);
    var key = document.getElementById("ar-category").value + "|" + document.getElementById("ar-difficulty").value;
    if (document.getElementById("ar-verified").checked) key += "|verified";
    var query = document.getElementById("ar-search").value.trim().toLowerCase();
    var slice = data[key] || {};
    var counts = JSON.parse(document.getElementById("ar-filter-tasks").textContent);
    var of = counts[key.replace("|verified", "")] || 0;
    var shown = 0;
    Array.prototype.forEach.call(board.tBodies[0].rows, function (row) {
      var label = row.getAttribute("data-label");
      var hit = slice[label];
      var visible = !!hit && (!query || label.toLowerCase().indexOf(query) !== -1);
      row.hidden = !visible;
      if (hit) {
        var overall = row.querySelector(".ar-mean");
        overall.parentNode.setAttribute("data-v", hit[0]);
        overall.textContent = hit[0].toFixed(1);
        var tasks = row.querySelector(".ar-tasks");
        tasks.setAttribute("data-v", hit[1]);
        tasks.firstChild.textContent = hit[1] + "/" + of;
        tasks.querySelector(".ar-bar span").style.width = (of ? 100 * hit[1] / of : 0) + "%";
      }
      if (visible) shown += 1;
    });
    document.getElementById("ar-nomatch").hidden = shown > 0;
  }
  function verifiedOnly(box) {
    var table = document.getElementById(box.getAttribute("data-table"));
    var shown = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      row.hidden = box.checked && row.getAttribute("data-verified") !== "1";
      if (!row.hidden) shown += 1;
    });
    var none = document.getElementById(table.id + "-none");
    if (none) none.hidden = shown > 0;
  }
  function applyOrder() {
    var table = document.getElementById("ar-board");
    var wanted = document.getElementById("ar-order").value === "seed002" ? "seed-rank" : "rank";
    var cells = table.tHead.rows[0].cells;
    for (var i = 0; i < cells.length; i++) {
      if (cells[i].getAttribute("data-col") === wanted) {
        cells[i].removeAttribute("aria-sort");
        sortBy(table, cells[i], i);
      }
    }
  }
  function linkChart() {
    // Pointing at (or focusing) a point marks it in both charts and its line in the key.
    var key = document.getElementById("ar-chart-key");
    if (!key) return;
    function mark(n, on) {
      Array.prototype.forEach.call(document.querySelectorAll('svg.ar-chart circle[data-n="' + n + '"]'),
        function (c) { c.classList.toggle("ar-hot", on); });
      var item = key.children[n - 1];
      if (item) item.classList.toggle("ar-hot", on);
    }
    Array.prototype.forEach.call(document.querySelectorAll("svg.ar-chart circle[data-n]"), function (c) {
      var n = c.getAttribute("data-n");
      ["mouseenter", "focus"].forEach(function (e) { c.addEventListener(e, function () { mark(n, true); }); });
      ["mouseleave", "blur"].forEach(function (e) { c.addEventListener(e, function () { mark(n, false); }); });
    });
    Array.prototype.forEach.call(key.children, function (li, i) {
      li.addEventListener("mouseenter", function () { mark(i + 1, true); });
      li.addEventListener("mouseleave", function () { mark(i + 1, false); });
    });
  }
  function init() {
    linkChart();
    Array.prototype.forEach.call(document.querySelectorAll("input.ar-verified-only"), function (box) {
      box.addEventListener("change", function () { verifiedOnly(box); });
    });
    Array.prototype.forEach.call(document.querySelectorAll("table.ar-sortable"), makeSortable);
    if (document.getElementById("ar-order")) {
      document.getElementById("ar-order").addEventListener("change", applyOrder);
    }
    if (document.getElementById("ar-filter-data")) {
      ["ar-category", "ar-difficulty", "ar-search", "ar-verified"].forEach(function (id) {
        document.getElementById(id).addEventListener("input", applyFilters);
        document.getElementById(id).addEventListener("change", applyFilters);
      });
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
