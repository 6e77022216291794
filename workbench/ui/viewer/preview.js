// A deep link's first paint (preview.py): the cited page and the quote's boxes, drawn from numbers
// where Review's viewer will show them (its scroll area, at "Fit width", the target a third of
// the way down), while Streamlit's frontend boots. Faded out when the viewer has drawn its own
// target ("wb:viewer-shown"), or the reader goes elsewhere, or after 10 s. Never takes a click.
(function () {
  var d = window.__wbFirstPaint;
  if (!d) return;
  var W = window.innerWidth, H = window.innerHeight;
  // Review's layout at this size (workbench/ui/widgets.py reading_layout, pages/review.py): the
  // sidebar (Streamlit's 300 px unless the reader resized it), the main column's 0.75rem padding,
  // the viewer's column 0.69 of it beside a 1rem gap, its scroll area TOP px down. Narrow windows
  // (the sidebar collapses, the columns stack) get no preview.
  var TOP = 274, SIDE = 4, GAP = 10;
  if (W < 1000 || H < 560) return;
  var side = 300;
  try { var sw = parseInt(window.localStorage.getItem("sidebarWidth"), 10); if (sw > 0) side = sw; } catch (e) { /* no storage */ }
  var main = W - side - 24;
  var left = side + 12 + 0.31 * main - 8 + 16, width = 0.69 * main - 8;
  var height = Math.max(280, Math.round(H - TOP - 28));
  if (width < 300) return;
  var cw = width - 2, ch = height - 2; // inside the 1 px border
  var scale = Math.max(100, cw - 2 * SIDE) / d.max_w;
  var pw = d.w * scale, ph = d.h * scale;
  var pageTop = GAP + d.above * scale + GAP * (d.page - 1);
  var y0 = d.target.length ? d.target[0][1] : 0;
  var full = 2 * GAP + d.total * scale + GAP * d.pages;
  var scrollTop = Math.max(0, Math.min(pageTop + (y0 / d.h) * ph - ch / 3, full - ch));
  // The image the viewer will ask for (the same URL: the browser's cache serves it then).
  var z = Math.min(3, Math.max(1, Math.round(scale * (window.devicePixelRatio || 1) * 4) / 4));
  var cap = Math.floor(Math.sqrt(d.max_pixels / (Math.max(1, d.w) * Math.max(1, d.h))) * 100) / 100;
  var url = d.base + "/" + d.doc + "/" + d.page + "?z=" + Math.max(0.01, Math.min(z, cap));

  function el(tag, css, cls) {
    var e = document.createElement(tag);
    e.style.cssText = css;
    if (cls) e.className = cls;
    return e;
  }
  var box = el("div", "position:fixed;z-index:999990;pointer-events:none;box-sizing:border-box;overflow:hidden;"
    + "background:#e9ebef;border:1px solid #d5d8de;border-radius:6px;transition:opacity .15s;"
    + "left:" + left + "px;top:" + TOP + "px;width:" + width + "px;height:" + height + "px");
  box.id = "wb-first-paint";
  box.setAttribute("aria-hidden", "true");
  var pg = el("div", "position:absolute;background:#fff;box-shadow:0 1px 3px rgba(0,0,0,.25);"
    + "left:" + (cw - pw) / 2 + "px;top:" + (pageTop - scrollTop) + "px;width:" + pw + "px;height:" + ph + "px",
    "wbp-page");
  var img = el("img", "position:absolute;inset:0;width:100%;height:100%;display:block");
  img.alt = "";
  img.decoding = "async";
  img.fetchPriority = "high";
  img.src = url;
  pg.appendChild(img);
  function mark(b, target) {
    var css = "position:absolute;box-sizing:border-box;border-radius:2px;"
      + "left:" + 100 * b[0] / d.w + "%;top:" + 100 * b[1] / d.h + "%;"
      + "width:" + 100 * (b[2] - b[0]) / d.w + "%;height:" + 100 * (b[3] - b[1]) / d.h + "%;"
      + (target ? "background:rgba(255,184,0,.45);outline:2px solid #d9480f;outline-offset:1px;mix-blend-mode:multiply;z-index:3"
                : "background:rgba(96,118,150,.10);border-bottom:1.5px solid rgba(96,118,150,.45);z-index:2");
    pg.appendChild(el("div", css, target ? "wbp-hl target" : "wbp-hl other"));
  }
  d.others.forEach(function (b) { mark(b, false); });
  d.target.forEach(function (b) { mark(b, true); });
  box.appendChild(pg);
  document.body.appendChild(box);

  var where = location.pathname, timer = null;
  function done() {
    window.removeEventListener("wb:viewer-shown", done);
    clearInterval(timer);
    box.style.opacity = "0";
    setTimeout(function () { box.remove(); }, 200);
  }
  window.addEventListener("wb:viewer-shown", done);
  timer = setInterval(function () { if (location.pathname !== where) done(); }, 250);
  setTimeout(done, 10000);
})();
