// geco report: filter the instance cards by text, outcome and feature changed. No dependencies.
(function () {
  "use strict";
  var cards = Array.prototype.slice.call(document.querySelectorAll("article.card"));
  var texts = cards.map(function (c) { return c.textContent.toLowerCase(); });
  var q = document.getElementById("q");
  var outcome = document.getElementById("outcome");
  var feature = document.getElementById("feature");
  var scope = document.getElementById("scope");
  var shown = document.getElementById("shown");
  function apply() {
    var text = q.value.trim().toLowerCase();
    var want = outcome.value;
    var f = feature.value ? "|" + feature.value + "|" : "";
    var attr = "data-" + scope.value;
    var n = 0;
    cards.forEach(function (c, i) {
      var ok = (!want || c.getAttribute("data-outcome") === want) &&
        (!f || c.getAttribute(attr).indexOf(f) >= 0) &&
        (!text || texts[i].indexOf(text) >= 0);
      c.hidden = !ok;
      if (ok) { n += 1; }
    });
    shown.textContent = n + " of " + cards.length + " instances shown";
  }
  [q, outcome, feature, scope].forEach(function (el) {
    el.addEventListener("input", apply);
    el.addEventListener("change", apply);
  });
  Array.prototype.forEach.call(document.querySelectorAll("[data-filter-feature]"), function (el) {
    el.addEventListener("click", function () {
      feature.value = el.getAttribute("data-filter-feature");
      apply();
      document.getElementById("instances").scrollIntoView();
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll("[data-filter-outcome]"), function (el) {
    el.addEventListener("click", function () {
      outcome.value = el.getAttribute("data-filter-outcome");
      apply();
      document.getElementById("instances").scrollIntoView();
    });
  });
  apply();
})();
