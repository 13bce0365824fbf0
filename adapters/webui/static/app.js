// chronos dashboard: the little the server cannot do. Every page works without it.
// - <time datetime> elements show the viewer's local time (UTC stays in the tooltip);
// - [data-refresh] regions reload themselves every data-every seconds;
// - [data-confirm] forms ask before they submit (and say so in their confirm field;
//   without this script the server asks on a page of its own instead);
// - [data-select-all] checkboxes tick every checkbox of that name;
// - [data-copy] buttons copy the value of the input they name (a new token's secret),
//   which is also selected, for a browser that refuses the clipboard.
(function () {
  "use strict";

  function localTimes(root) {
    var fmt = new Intl.DateTimeFormat(undefined, {
      year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short"
    });
    root.querySelectorAll("time[datetime]").forEach(function (el) {
      var d = new Date(el.getAttribute("datetime"));
      if (!isNaN(d)) { el.textContent = fmt.format(d); }
    });
  }

  function refresh(el) {
    var url = el.getAttribute("data-refresh");
    var every = Math.max(2, parseInt(el.getAttribute("data-every"), 10) || 5) * 1000;
    setInterval(function () {
      if (document.hidden) { return; }
      fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (r) {
          if (r.redirected || !r.ok) { throw new Error("refresh: " + r.status); }
          return r.text();
        })
        .then(function (html) {
          el.innerHTML = html; // the server's own template, escaped there
          localTimes(el);
        })
        .catch(function () { /* keep the last view; the next tick tries again */ });
    }, every);
  }

  document.addEventListener("DOMContentLoaded", function () {
    localTimes(document);
    document.querySelectorAll("[data-refresh]").forEach(refresh);
    document.querySelectorAll("form[data-confirm]").forEach(function (f) {
      f.addEventListener("submit", function (e) {
        if (!window.confirm(f.getAttribute("data-confirm"))) { e.preventDefault(); return; }
        var asked = f.querySelector("input[name=confirm]");
        if (asked) { asked.value = "yes"; }
      });
    });
    document.querySelectorAll("button[data-copy]").forEach(function (b) {
      b.addEventListener("click", function () {
        var input = document.getElementById(b.getAttribute("data-copy"));
        if (!input) { return; }
        input.select();
        var copied = false;
        try { copied = document.execCommand("copy"); } catch (err) { copied = false; }
        if (copied) { b.textContent = "Copied"; return; }
        b.textContent = "Selected: press Ctrl+C";
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(input.value).then(function () { b.textContent = "Copied"; }, function () {});
        }
      });
    });
    document.querySelectorAll("[data-select-all]").forEach(function (box) {
      var name = box.getAttribute("data-select-all");
      box.addEventListener("change", function () {
        document.querySelectorAll("input[type=checkbox][name='" + name + "']").forEach(function (c) {
          c.checked = box.checked;
        });
      });
    });
  });
})();
