// Lazy PDF viewer: placeholders sized by aspect ratio, page images loaded near the viewport
// and unloaded far from it, highlight boxes placed in % of the cropbox (PDF points), so they
// stay on the quoted words at every zoom. A transparent text layer built from the document's
// own words (their boxes and character offsets) makes the page selectable; a selection maps to
// exact offsets and can be added as evidence.
//
// A selection lands here first, without waiting for Streamlit: J/K (next/previous in the page's
// order), a click on a highlight, and any "wb:evidence" event on window (the grid's rows, the
// answer's citation chips) move the target box and scroll to it at once, then report
// {id, seq} to the app (a state value), which re-renders the rest of the page. Until the app has seen the
// latest seq (data.ack), data naming another target is an older run's and does not move it back.
//
// The app gives every document the page may show (data.documents: page sizes, labels, a signed
// link each) and every item's boxes, each naming its document: a selection in another document
// rebuilds the pages here for that document and lands on the box, without waiting for a rerun.
//
// Pages read by OCR (data.documents[id].ocr) get an "OCR text" toggle: on, their text layer is
// drawn visibly (each word over its box, on a light background) and words OCR read below
// data.ocr_low are marked with their confidence; the same spans, so selecting and adding evidence
// work as before. The choice is kept for the tab (sessionStorage), across pages and reruns.
const LOAD_MARGIN = "800px 0px";
const KEEP_MARGIN = "4000px 0px";
const LOAD_DELAY_MS = 60;
const STEPS = [0.5, 0.67, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2, 2.5, 3, 4]; // × actual size
const PT = 96 / 72; // CSS px per PDF point at 100 %
const GAP = 10; // px between pages
const SIDE = 4; // px beside a page at "Fit width": the width goes to the page (90 % fits at 1440 × 900)

function renderZoom(st) {
  // Image resolution: display scale × device pixels, snapped (the server caches per step).
  const z = st.scale * (window.devicePixelRatio || 1);
  return Math.min(3, Math.max(1, Math.round(z * 4) / 4));
}

// The zoom to ask for: the viewer's, or less where the page would pass the server's pixel cap
// (a 14,400 pt page); the server scales down to the cap anyway, this keeps the URL truthful.
function pageZoom(st, div) {
  const area = Math.max(1, +div.dataset.w) * Math.max(1, +div.dataset.h);
  const fit = Math.floor(Math.sqrt(st.maxPixels / area) * 100) / 100;
  return Math.max(0.01, Math.min(st.zoom, fit));
}

// With sign-in on, every request carries the link the app minted for this session (?t=…):
// the routes refuse page images and words without it.
function linkParam(st) {
  return st.link ? `t=${encodeURIComponent(st.link)}` : "";
}

function pageUrl(st, div, attempt) {
  const t = linkParam(st), r = attempt ? `&r=${attempt}` : "";
  return `${st.base}/${st.doc}/${div.dataset.pageNumber}?z=${pageZoom(st, div)}${t ? "&" + t : ""}${r}`;
}

// The URL of page `n` of another document `docId` as build() + load() will ask for it once that
// document is shown (the same fit or zoom): fetched ahead, the switch finds it in a cache.
function otherPageUrl(st, docId, n) {
  const info = st.docs[docId], s = info && info.sizes[n - 1];
  if (!s) return null;
  let scale = st.scale;
  if (st.fit === "width") scale = Math.max(100, (st.root.clientWidth || 800) - 2 * SIDE) / Math.max(...info.sizes.map(x => x[0]));
  else if (st.fit === "page") scale = fitScale({ root: st.root, sizes: info.sizes, current: 1 }, "page");
  const z = renderZoom({ scale });
  const fit = Math.floor(Math.sqrt(st.maxPixels / (Math.max(1, s[0]) * Math.max(1, s[1]))) * 100) / 100;
  const t = info.link ? `&t=${encodeURIComponent(info.link)}` : "";
  return `${st.base}/${docId}/${n}?z=${Math.max(0.01, Math.min(z, fit))}${t}`;
}

// Fetch another document's page ahead (once per URL): the browser keeps it (sign-in off) and the
// server has it rendered either way. `done` runs when it has come or failed.
function fetchAhead(st, docId, n, done) {
  const url = otherPageUrl(st, docId, n);
  st.ahead = st.ahead || new Set();
  if (!url || st.ahead.has(url)) { if (done) done(false); return; }
  st.ahead.add(url);
  const img = new Image();
  img.decoding = "async";
  img.onload = () => { if (done) done(true); };
  img.onerror = () => { st.ahead.delete(url); if (done) done(true); };
  img.src = url;
}

// The link is about to run out (or has): ask the app for a fresh one, once per link. The rerun
// this causes sends new data, and the retries below pick the new link up.
function linkStale(st) {
  if (!st.link || !st.onStale || Date.now() < st.linkExpires - 30000 || st.staleAsked === st.link) return;
  st.staleAsked = st.link;
  st.onStale(Date.now());
}

const MAX_TRIES = 6;

// A refused or failed request (the server busy: 503/429, the link expired: 401): try again a
// little later, a few times, spreading the retries out.
function retryLater(st, tries, again) {
  if (tries >= MAX_TRIES) return false;
  linkStale(st);
  setTimeout(again, 300 * 2 ** tries + Math.random() * 300);
  return true;
}

function fitScale(st, mode) {
  const r = st.root;
  const maxW = Math.max(...st.sizes.map(s => s[0]));
  const width = Math.max(100, (r.clientWidth || 800) - 2 * SIDE);
  if (mode === "page") {
    const cur = st.sizes[(st.current || 1) - 1] || st.sizes[0];
    const height = Math.max(100, (r.clientHeight || 600) - 2 * GAP);
    return Math.min(width / cur[0], height / cur[1]);
  }
  return width / maxW;
}

// The point at the anchor (viewport px inside the scroll area) as (page, fx, fy).
function pointAt(st, ax, ay) {
  const r = st.root, y = r.scrollTop + ay;
  let page = st.pages[0];
  for (const d of st.pages) { if (d.offsetTop <= y) page = d; else break; }
  return {
    page,
    fx: (r.scrollLeft + ax - page.offsetLeft) / Math.max(1, page.offsetWidth),
    fy: (y - page.offsetTop) / Math.max(1, page.offsetHeight),
  };
}

function setScale(st, scale, fit, anchor) {
  const r = st.root;
  scale = Math.min(4 * PT, Math.max(0.25 * PT, scale));
  const ax = anchor ? anchor[0] : r.clientWidth / 2, ay = anchor ? anchor[1] : r.clientHeight / 3;
  const keep = st.pages.length && st.scale ? pointAt(st, ax, ay) : null;
  st.scale = scale;
  st.fit = fit || null;
  st.sizes.forEach((s, i) => { st.pages[i].style.width = `${(s[0] * scale).toFixed(2)}px`; });
  r.style.setProperty("--wbv-scale", String(scale));
  const z = renderZoom(st);
  if (z !== st.zoom) {
    st.zoom = z;
    for (const img of r.querySelectorAll(".wbv-page img")) img.src = pageUrl(st, img.parentElement);
  }
  if (keep) {
    r.scrollTop = keep.page.offsetTop + keep.fy * keep.page.offsetHeight - ay;
    r.scrollLeft = keep.page.offsetLeft + keep.fx * keep.page.offsetWidth - ax;
  }
  st.zoomLabel.textContent = `${Math.round((100 * scale) / PT)} %`;
  st.wrap.dataset.zoom = String(Math.round((1000 * scale) / PT) / 1000);
  st.wrap.dataset.fit = st.fit || "";
}

// The target box's centre (in the scroll area's viewport) when it is in view: zooming about it
// keeps the highlight where the reviewer is looking.
function targetAnchor(st) {
  const el = st.root.querySelector(".wbv-hl.target");
  if (!el) return undefined;
  const b = el.getBoundingClientRect(), v = st.root.getBoundingClientRect();
  if (b.bottom < v.top || b.top > v.bottom) return undefined;
  return [Math.min(v.width, Math.max(0, (b.left + b.right) / 2 - v.left)),
          Math.min(v.height, Math.max(0, (b.top + b.bottom) / 2 - v.top))];
}

function keepTargetInView(st) {
  const el = st.root.querySelector(".wbv-hl.target");
  if (!el) return;
  const b = el.getBoundingClientRect(), v = st.root.getBoundingClientRect();
  if (b.left < v.left || b.right > v.right) st.root.scrollLeft += b.left - v.left - 24;
}

function zoomStep(st, dir, anchor) {
  const cur = st.scale / PT;
  let next;
  if (dir > 0) next = STEPS.find(s => s > cur * 1.01) || STEPS[STEPS.length - 1];
  else next = [...STEPS].reverse().find(s => s < cur * 0.99) || STEPS[0];
  setScale(st, next * PT, null, anchor);
}

function labelText(st, n) {
  const lab = st.labels[n - 1];
  return lab && lab !== String(n) ? `printed p. ${lab}` : "";
}

function updateCurrent(st) {
  const r = st.root;
  if (!st.pages.length) return;
  const line = r.scrollTop + r.clientHeight / 3;
  let n = 1;
  for (const d of st.pages) { if (d.offsetTop <= line) n = +d.dataset.pageNumber; else break; }
  if (n === st.current && st.pageInput.value) return;
  st.current = n;
  if (st.wrap.getRootNode().activeElement !== st.pageInput) st.pageInput.value = String(n);
  st.label.textContent = labelText(st, n);
  st.wrap.dataset.current = String(n);
}

function goToPage(st, n) {
  n = Math.min(st.pages.length, Math.max(1, n));
  const d = st.pages[n - 1];
  st.root.scrollTop = d.offsetTop - GAP;
  st.root.scrollLeft = Math.max(0, d.offsetLeft - GAP); // the page's left margin in view
  st.current = 0;
  updateCurrent(st);
}

function say(st, text) {
  st.msg.textContent = text || "";
  st.msg.hidden = !text;
}

// A typed page: a printed label ("iv", "28") first, else the PDF page number.
function resolvePage(st, raw) {
  const v = String(raw).trim().toLowerCase().replace(/^p\.?\s*/, "");
  if (!v) return null;
  const i = st.labels.findIndex(l => l && l.toLowerCase() === v);
  if (i >= 0 && !st.labelsArePositions) return i + 1;
  const n = parseInt(v, 10);
  return Number.isFinite(n) && String(n) === v ? n : (i >= 0 ? i + 1 : null);
}

function buildChrome(st, parentElement) {
  const wrap = parentElement.querySelector(".wbv");
  st.wrap = wrap;
  const bar = wrap.querySelector(".wbv-bar");
  st.pageInput = bar.querySelector(".wbv-pageno");
  st.of = bar.querySelector(".wbv-of");
  st.label = bar.querySelector(".wbv-label");
  st.zoomLabel = bar.querySelector(".wbv-zoom");
  st.docName = wrap.querySelector(".wbv-docname");
  st.where = wrap.querySelector(".wbv-where");
  st.cap = wrap.querySelector(".wbv-cap");
  st.addBtn = wrap.querySelector(".wbv-add");
  st.msg = wrap.querySelector(".wbv-msg");
  st.ocrBtn = bar.querySelector(".wbv-ocr");
  if (st.ocrOn === undefined) st.ocrOn = ocrRemembered();
  if (wrap._wired) return;
  wrap._wired = true;
  bar.addEventListener("click", e => {
    const act = e.target.closest("button")?.dataset.act;
    if (!act || !st.pages.length) return;
    if (act === "in") zoomStep(st, 1, targetAnchor(st));
    else if (act === "out") zoomStep(st, -1, targetAnchor(st));
    else if (act === "width") { setScale(st, fitScale(st, "width"), "width", targetAnchor(st)); keepTargetInView(st); }
    else if (act === "page") { setScale(st, fitScale(st, "page"), "page"); goToPage(st, st.current || 1); }
    else if (act === "prev") goToPage(st, (st.current || 1) - 1);
    else if (act === "next") goToPage(st, (st.current || 1) + 1);
    else if (act === "ocr") { st.ocrOn = !st.ocrOn; ocrRemember(st.ocrOn); showOcr(st); }
  });
  st.pageInput.addEventListener("keydown", e => {
    e.stopPropagation(); // typed characters are not the app's keyboard shortcuts
    if (e.key === "Enter") {
      const raw = st.pageInput.value, n = resolvePage(st, raw);
      if (!n || n < 1 || n > st.pages.length) { // say so and stay: the reviewer fixes the number
        say(st, `No page “${String(raw).trim().slice(0, 12)}”: this document has ${st.pages.length} page${st.pages.length === 1 ? "" : "s"}.`);
        st.pageInput.select();
        return;
      }
      say(st, "");
      goToPage(st, n);
      st.pageInput.blur();
    } else if (e.key === "Escape") {
      say(st, "");
      st.pageInput.value = String(st.current || 1);
      st.pageInput.blur();
    }
  });
  st.pageInput.addEventListener("blur", () => { if (st.msg.hidden) st.pageInput.value = String(st.current || 1); });
  const r = st.root;
  r.addEventListener("scroll", () => { updateCurrent(st); hideAdd(st); }, { passive: true });
  r.addEventListener("wheel", e => {
    if (!e.ctrlKey || !st.pages.length) return;
    e.preventDefault();
    const box = r.getBoundingClientRect();
    zoomStep(st, e.deltaY < 0 ? 1 : -1, [e.clientX - box.left, e.clientY - box.top]);
  }, { passive: false });
  r.addEventListener("keydown", e => {
    if (!st.pages.length || e.altKey || e.metaKey) return;
    let done = true;
    if ((e.key === "+" || e.key === "=") ) zoomStep(st, 1, targetAnchor(st));
    else if (e.key === "-") zoomStep(st, -1, targetAnchor(st));
    else if (e.key === "0") { setScale(st, fitScale(st, "width"), "width", targetAnchor(st)); keepTargetInView(st); }
    else if (e.key === "ArrowRight" && !e.shiftKey) goToPage(st, (st.current || 1) + 1);
    else if (e.key === "ArrowLeft" && !e.shiftKey) goToPage(st, (st.current || 1) - 1);
    else if (e.key === "g") { st.pageInput.focus(); st.pageInput.select(); }
    else done = false;
    if (done) { e.preventDefault(); e.stopPropagation(); }
  });
  new ResizeObserver(() => {
    if (st.fit && st.pages.length) setScale(st, fitScale(st, st.fit), st.fit);
  }).observe(r);
  r.addEventListener("mouseup", e => setTimeout(() => offerSelection(st, e), 0));
  r.addEventListener("keyup", e => { if (e.shiftKey) setTimeout(() => offerSelection(st, null), 0); });
  st.addBtn.addEventListener("mousedown", e => e.preventDefault()); // keep the selection
  st.addBtn.addEventListener("click", () => {
    const sel = st.selection;
    if (!sel || !st.onAdd) return;
    st.onAdd({ start: sel.start, end: sel.end, page: sel.page, text: sel.text, document_id: st.doc,
               nonce: Date.now() });
    const s = selectionOf(st);
    if (s) s.removeAllRanges();
    hideAdd(st);
  });
}

// Show document `docId` (one of st.docs): fresh page placeholders; a zoom the reviewer chose is
// kept, a fit is fitted again to this document's pages.
function build(st, docId) {
  const info = st.docs[docId];
  const scroll = st.root;
  const kept = st.scale && !st.fit ? st.scale : 0, mode = st.fit || "width";
  scroll.innerHTML = "";
  st.pages = [];
  st.doc = docId;
  st.link = info.link || "";
  st.boxSig = null;
  st.sizes = info.sizes;
  st.labels = info.labels || [];
  st.labelsArePositions = st.labels.every((l, i) => !l || l === String(i + 1));
  st.scale = 0;
  st.zoom = 0;
  st.current = 0;
  st.of.textContent = `of ${info.sizes.length}`;
  st.wrap.dataset.doc = docId;
  info.sizes.forEach((s, i) => {
    const div = document.createElement("div");
    div.className = "wbv-page";
    div.dataset.pageNumber = String(i + 1);
    div.style.aspectRatio = `${s[0]} / ${s[1]}`;
    div.dataset.w = s[0];
    div.dataset.h = s[1];
    const num = document.createElement("span");
    num.className = "wbv-num";
    num.textContent = st.labels[i] && st.labels[i] !== String(i + 1) ? `${i + 1} (p. ${st.labels[i]})` : String(i + 1);
    div.appendChild(num);
    scroll.appendChild(div);
    st.pages.push(div);
  });
  if (kept) setScale(st, kept, null);
  else setScale(st, fitScale(st, mode), mode);
  if (st.loadObs) st.loadObs.disconnect();
  if (st.keepObs) st.keepObs.disconnect();
  st.loadObs = new IntersectionObserver(entries => {
    for (const e of entries) {
      const div = e.target;
      if (e.isIntersecting) {
        div._want = true;
        setTimeout(() => { if (div._want) load(st, div); }, LOAD_DELAY_MS);
      } else {
        div._want = false;
      }
    }
  }, { root: scroll, rootMargin: LOAD_MARGIN });
  st.keepObs = new IntersectionObserver(entries => {
    for (const e of entries) if (!e.isIntersecting) unload(e.target);
  }, { root: scroll, rootMargin: KEEP_MARGIN });
  st.pages.forEach(d => { st.loadObs.observe(d); st.keepObs.observe(d); });
  updateCurrent(st);
}

function load(st, div, urgent) {
  if (div.querySelector("img")) return;
  div._drawn = true;
  const img = document.createElement("img");
  if (urgent) img.fetchPriority = "high";
  img.alt = `page ${div.dataset.pageNumber}`;
  img.decoding = "async";
  img.draggable = false;
  img.onerror = () => {
    const tries = (img._tries || 0) + 1;
    img._tries = tries;
    retryLater(st, tries, () => { if (img.isConnected && st.pages.includes(div)) img.src = pageUrl(st, div, tries); });
  };
  img.onload = () => { img._tries = 0; };
  img.src = pageUrl(st, div);
  div.insertBefore(img, div.firstChild);
  // The text layer (hundreds of spans a page) once the page is drawn and the browser is idle:
  // built at once, it took the main thread while a jump's target was landing.
  if (st.wordsBase && !div.querySelector(".wbv-text")) {
    const doc = st.doc;
    const words = () => whenIdle(() => {
      if (st.doc === doc && img.isConnected && !div.querySelector(".wbv-text")) loadWords(st, div);
    });
    img.addEventListener("load", words, { once: true });
  }
}

function whenIdle(f) {
  if (window.requestIdleCallback) window.requestIdleCallback(f, { timeout: 1000 });
  else setTimeout(f, 50);
}

const measureCtx = document.createElement("canvas").getContext("2d");

// One transparent span per word, placed on the word's box; font size follows the zoom
// (--wbv-scale) and a horizontal stretch measured once makes the glyphs span the box.
async function loadWords(st, div, tries = 0) {
  const doc = st.doc, n = div.dataset.pageNumber;
  const layer = document.createElement("div");
  layer.className = "wbv-text";
  div.appendChild(layer);
  let words;
  try {
    const t = linkParam(st);
    const resp = await fetch(`${st.wordsBase}/${doc}/${n}${t ? "?" + t : ""}`);
    if (!resp.ok) {
      if ([401, 403, 429, 503].includes(resp.status)) {
        layer.remove();
        retryLater(st, tries + 1, () => {
          if (st.doc === doc && div.isConnected && div.querySelector("img") && !div.querySelector(".wbv-text")) {
            loadWords(st, div, tries + 1);
          }
        });
      }
      return;
    }
    words = await resp.json();
  } catch (_) {
    return;
  }
  if (st.doc !== doc || !layer.isConnected) return;
  const w = +div.dataset.w, h = +div.dataset.h;
  const frag = document.createDocumentFragment();
  let prev = null;
  // An 8th element, OCR's confidence, on a page OCR read: the layer the "OCR text" toggle shows.
  if (words.some(r => r.length > 7)) layer.classList.add("is-ocr");
  for (const [x0, y0, x1, y1, text, start, end, conf] of words) {
    if (prev && (Math.abs(prev[1] - y0) > 2 || x0 < prev[2])) frag.appendChild(document.createElement("br"));
    else if (prev) frag.appendChild(document.createTextNode(" "));
    const span = document.createElement("span");
    span.textContent = text;
    span.dataset.start = String(start);
    span.dataset.end = String(end);
    const fh = Math.max(1, y1 - y0);
    measureCtx.font = `${fh}px sans-serif`;
    const tw = measureCtx.measureText(text).width || 1;
    span.style.left = `${(100 * x0) / w}%`;
    span.style.top = `${(100 * y0) / h}%`;
    span.style.fontSize = `calc(var(--wbv-scale) * ${fh.toFixed(2)}px)`;
    span.style.transform = `scaleX(${((x1 - x0) / tw).toFixed(4)})`;
    if (typeof conf === "number") {
      span.dataset.conf = conf.toFixed(2);
      if (conf < st.ocrLow) span.classList.add("low");
    }
    frag.appendChild(span);
    prev = [x0, y0, x1];
  }
  layer.appendChild(frag);
  if (layer.classList.contains("is-ocr")) ocrTitles(st, layer);
}

function ocrRemembered() {
  try { return window.sessionStorage.getItem("wbv-ocr-text") === "on"; } catch (_) { return false; }
}

function ocrRemember(on) {
  try { window.sessionStorage.setItem("wbv-ocr-text", on ? "on" : "off"); } catch (_) { /* private mode */ }
}

// The toggle is offered for a document with pages OCR read; on, their text layers are visible.
function showOcr(st) {
  const info = (st.doc && st.docs[st.doc]) || {};
  const offered = !!(info.ocr && info.ocr.length);
  const on = offered && !!st.ocrOn;
  st.ocrBtn.hidden = !offered;
  st.ocrBtn.setAttribute("aria-pressed", on ? "true" : "false");
  st.wrap.classList.toggle("ocr-on", on);
  st.wrap.dataset.ocrText = on ? "on" : "off";
  for (const layer of st.root.querySelectorAll(".wbv-text.is-ocr")) ocrTitles(st, layer);
}

// Shown, each OCR word says how sure OCR was (a tooltip); hidden, the invisible layer says nothing.
function ocrTitles(st, layer) {
  const on = st.wrap.classList.contains("ocr-on");
  for (const span of layer.querySelectorAll("span[data-conf]")) {
    if (!on) { span.removeAttribute("title"); continue; }
    const low = span.classList.contains("low");
    span.title = `Read by OCR, confidence ${span.dataset.conf}${low ? ` (below ${st.ocrLow})` : ""}`;
  }
}

function unload(div) {
  const img = div.querySelector("img");
  if (img) { img.src = ""; img.remove(); }
  const layer = div.querySelector(".wbv-text");
  if (layer && !layer.contains(selectionAnchor(div))) layer.remove();
}

function selectionOf(st) {
  const root = st.root.getRootNode();
  return (root.getSelection && root.getSelection()) || document.getSelection();
}

function selectionAnchor(div) {
  const root = div.getRootNode();
  const s = (root.getSelection && root.getSelection()) || document.getSelection();
  return s && s.rangeCount ? s.anchorNode : null;
}

// The selected words as exact character offsets into the document's text.
function currentSelection(st) {
  const sel = selectionOf(st);
  if (!sel || !sel.rangeCount || sel.isCollapsed) return null;
  const range = sel.getRangeAt(0);
  let start = Infinity, end = -Infinity, page = null;
  const parts = [];
  for (const layer of st.root.querySelectorAll(".wbv-text")) {
    if (!range.intersectsNode(layer)) continue;
    for (const span of layer.querySelectorAll("span")) {
      if (!range.intersectsNode(span)) continue;
      const ws = +span.dataset.start, we = +span.dataset.end, t = span.firstChild;
      const exact = t && t.nodeValue.length === we - ws;
      let s = ws, e = we;
      if (exact && range.startContainer === t) s = ws + range.startOffset;
      if (exact && range.endContainer === t) e = ws + range.endOffset;
      if (e <= s) continue;
      if (s < start) { start = s; page = +layer.parentElement.dataset.pageNumber; }
      end = Math.max(end, e);
      parts.push(t.nodeValue.slice(s - ws, e - ws));
    }
  }
  if (!Number.isFinite(start) || end <= start) return null;
  return { start, end, page, text: parts.join(" ") };
}

function offerSelection(st, e) {
  if (!st.onAdd) return;
  const sel = currentSelection(st);
  st.selection = sel;
  if (!sel) { hideAdd(st); return; }
  const wrapBox = st.wrap.getBoundingClientRect();
  let x, y;
  if (e) { x = e.clientX; y = e.clientY; } else {
    const b = selectionOf(st).getRangeAt(0).getBoundingClientRect();
    x = b.right; y = b.bottom;
  }
  st.addBtn.hidden = false;
  st.addBtn.style.left = `${Math.max(4, Math.min(wrapBox.width - 170, x - wrapBox.left + 8))}px`;
  st.addBtn.style.top = `${Math.max(40, Math.min(wrapBox.height - 36, y - wrapBox.top + 10))}px`;
  st.addBtn.title = `Add “${sel.text.slice(0, 80)}${sel.text.length > 80 ? "…" : ""}” (characters ${sel.start}–${sel.end}) as evidence`;
  st.wrap.dataset.selStart = String(sel.start);
  st.wrap.dataset.selEnd = String(sel.end);
}

function hideAdd(st) {
  if (st.addBtn) st.addBtn.hidden = true;
}

// The document a box is on: its own (`doc`), else the document the app shows.
function boxDoc(st, h) {
  return h.doc || st.appDoc;
}

function drawHighlights(st, onSelect) {
  // The same boxes as the last run's (most reruns): only the target moves, no elements replaced.
  const sig = JSON.stringify([st.doc, st.highlights]);
  if (sig === st.boxSig && st.root.querySelector(".wbv-hl")) { markTarget(st, st.target); return; }
  st.boxSig = sig;
  for (const el of st.root.querySelectorAll(".wbv-hl")) el.remove();
  st.boxes = new Map(); // evidence id -> its boxes, in whichever document
  for (const h of st.highlights) {
    const doc = boxDoc(st, h);
    if (!st.boxes.has(h.id)) st.boxes.set(h.id, []);
    st.boxes.get(h.id).push({ ...h, doc });
    if (doc !== st.doc) continue;
    const div = st.pages[h.page - 1];
    if (!div) continue;
    const w = +div.dataset.w, hgt = +div.dataset.h;
    const el = document.createElement("div");
    el.className = "wbv-hl " + (h.id === st.target ? "target" : "other");
    el.dataset.evidenceId = h.id;
    el.dataset.page = String(h.page);
    el.title = h.id;
    el.style.left = `${(100 * h.x0) / w}%`;
    el.style.top = `${(100 * h.y0) / hgt}%`;
    el.style.width = `${(100 * (h.x1 - h.x0)) / w}%`;
    el.style.height = `${(100 * (h.y1 - h.y0)) / hgt}%`;
    el.addEventListener("click", () => onSelect(h.id));
    div.appendChild(el);
  }
}

// Make `id` the target: swap the classes, no redraw.
function markTarget(st, id) {
  st.target = id;
  for (const el of st.root.querySelectorAll(".wbv-hl")) {
    const on = el.dataset.evidenceId === id;
    el.classList.toggle("target", on);
    el.classList.toggle("other", !on);
  }
  st.root.dataset.target = id || "";
  caption(st);
}

// The line above the toolbar: the document shown, the target and where it is, the page's hint.
// Written here (as text) whenever the target moves, so it never lags the highlight.
function caption(st) {
  const info = (st.doc && st.docs[st.doc]) || {}, id = st.target, cite = id && st.cites[id];
  const parts = [];
  if (id) parts.push(cite ? `${id} is on ${cite}` : `${id} could not be anchored in the PDF`);
  if (st.hint) parts.push(st.hint);
  st.docName.textContent = info.name || "";
  st.where.textContent = (info.name && parts.length ? " · " : "") + parts.join(" · ");
  st.cap.title = st.docName.textContent + st.where.textContent;
  st.wrap.dataset.caption = st.cap.title;
}

// The pages of the items around the target in the page's order, loaded now (a J/K lands on a
// drawn page); the target's own page first.
function prefetch(st) {
  const order = st.order || [];
  const i = order.indexOf(st.target);
  const want = [];
  const elsewhere = [];
  for (const d of [0, 1, -1, 2, -2]) {
    const id = i >= 0 ? order[(i + d + order.length) % order.length] : (d === 0 ? st.target : null);
    const b = id && st.boxes && st.boxes.get(id);
    if (!b || !b.length) continue;
    if (b[0].doc !== st.doc) { elsewhere.push([b[0].doc, b[0].page]); continue; }
    for (const p of new Set(b.map(x => x.page))) want.push(p);
  }
  // The target's page first and alone (renders are rationed on the server); its neighbours once
  // it is drawn.
  const first = st.pages[want[0] - 1];
  if (!first) return;
  load(st, first, true);
  const img = first.querySelector("img");
  const others = [...new Set(want)].filter(p => p !== want[0]);
  const rest = () => {
    if (img && !img.isConnected) return; // unloaded meanwhile (its src emptied fires "error")
    for (const p of others) { const div = st.pages[p - 1]; if (div) load(st, div); }
    for (const [doc, p] of elsewhere) fetchAhead(st, doc, p); // a J/K into another document
  };
  if (!img || img.complete) rest();
  else {
    img.addEventListener("load", rest, { once: true });
    img.addEventListener("error", rest, { once: true });
  }
}

// Then, one at a time once the target is drawn, every page the app gave boxes for (a run's
// evidence is a few dozen pages at most): a click on any grid row lands on a drawn page.
const WARM_MAX = 40;
function warmAll(st) {
  if (st.warmedDoc === st.doc || !st.boxes) return;
  st.warmedDoc = st.doc;
  const doc = st.doc;
  const all = [...st.boxes.values()].flat();
  const pages = [...new Set(all.filter(b => b.doc === doc).map(b => b.page))].slice(0, WARM_MAX);
  // Other documents' pages holding evidence: fetched ahead, so a jump there lands on a cached page.
  const seen = new Set(), away = [];
  for (const b of all) {
    const k = `${b.doc}|${b.page}`;
    if (b.doc !== doc && !seen.has(k)) { seen.add(k); away.push([b.doc, b.page]); }
  }
  away.splice(Math.max(0, WARM_MAX - pages.length));
  const ahead = () => {
    if (st.doc !== doc) return;
    const x = away.shift();
    if (x) fetchAhead(st, x[0], x[1], fresh => setTimeout(ahead, fresh ? 20 : 0));
  };
  const next = () => {
    if (st.doc !== doc) return;
    const p = pages.shift();
    if (p == null) { ahead(); return; }
    const div = st.pages[p - 1];
    // Once drawn, a page is the lazy loader's: one the reviewer scrolled away from stays unloaded.
    if (!div || div._drawn || div.querySelector("img")) { next(); return; }
    load(st, div);
    const img = div.querySelector("img");
    img.addEventListener("load", () => setTimeout(next, 20), { once: true });
    img.addEventListener("error", () => setTimeout(next, 500), { once: true });
  };
  setTimeout(next, 600);
}

// A selection made here: show it now (in another document the app gave: that document's pages
// first), tell the app. Returns false when no document here has a box for it (a quote that
// could not be anchored: the app shows its document, which takes a rerun).
function selectHere(st, id) {
  if (!st.report) return false;
  st.seq = Math.max((st.seq || 0) + 1, Date.now()); // increasing across remounts, as the app's ack is
  const boxes = st.boxes && st.boxes.get(id);
  const here = !!(boxes && boxes.length && st.docs[boxes[0].doc]);
  if (here) {
    if (boxes[0].doc !== st.doc) {
      build(st, boxes[0].doc);
      showOcr(st);
      st.target = id;
      drawHighlights(st, h => selectHere(st, h));
      warmAll(st);
    }
    markTarget(st, id);
    st.shown = id;
    scrollToTarget(st, { target: id, highlights: boxes.filter(b => b.doc === st.doc) });
    prefetch(st);
  }
  st.report({ id, seq: st.seq });
  return here;
}

function step(st, dir) {
  const order = st.order || [];
  if (!order.length) return;
  const i = order.indexOf(st.target);
  const next = order[((i < 0 ? (dir > 0 ? -1 : 0) : i) + dir + order.length) % order.length];
  selectHere(st, next);
}

function scrollToTarget(st, data) {
  const boxes = data.highlights.filter(h => h.id === data.target && boxDoc(st, h) === st.doc);
  let page, y = 0, x0 = 0, x1 = 0;
  if (boxes.length) {
    const first = boxes.filter(b => b.page === boxes[0].page);
    page = st.pages[boxes[0].page - 1];
    y = boxes[0].y0 / +page.dataset.h;
    x0 = Math.min(...first.map(b => b.x0)) / +page.dataset.w;
    x1 = Math.max(...first.map(b => b.x1)) / +page.dataset.w;
  } else if (data.page) {
    page = st.pages[data.page - 1];
  }
  if (!page) return;
  load(st, page, true); // now, not after the lazy loader's delay
  const r = st.root;
  const at = page.offsetTop + y * page.clientHeight;
  r.scrollTop = Math.max(0, at - r.clientHeight / 3);
  st.placed = { top: r.scrollTop, at };
  // The page's left margin stays in view unless the quote would be cut on the right.
  let left = page.offsetLeft - GAP;
  const right = page.offsetLeft + x1 * page.offsetWidth + 16;
  if (right - left > r.clientWidth) left = Math.min(page.offsetLeft + x0 * page.offsetWidth - 24, right - r.clientWidth);
  r.scrollLeft = Math.max(0, left);
  updateCurrent(st);
}

// height: null → fill the window below the viewer's top (it grows as the page scrolls it up to
// its sticky place), never less than the window less fill_offset.
function fitHeight(st) {
  if (st.fixedHeight) return;
  const top = Math.max(st.fillOffset, st.root.getBoundingClientRect().top);
  const h = Math.max(280, Math.round(window.innerHeight - top - 28));
  if (h !== st.height) {
    // A target placed a third of the way down, not scrolled since, stays a third of the way down.
    const r = st.root, kept = st.placed && st.placed.top === r.scrollTop ? st.placed.at : null;
    st.height = h;
    st.wrap.style.setProperty("--wbv-height", `${h}px`);
    if (kept != null) {
      r.scrollTop = Math.max(0, kept - r.clientHeight / 3);
      st.placed = { top: r.scrollTop, at: kept };
    }
  }
}

// While the page around the viewer is still being drawn (fonts, the elements above it), its top
// moves without any scroll or resize event: fit the height on every frame for a while.
function settleHeight(st) {
  if (st.fixedHeight || st.settling) return;
  st.settling = true;
  const until = performance.now() + 2500;
  const tick = () => {
    fitHeight(st);
    if (performance.now() < until && st.wrap.isConnected) requestAnimationFrame(tick);
    else st.settling = false;
  };
  requestAnimationFrame(tick);
}

export default function ({ data, parentElement, setTriggerValue, setStateValue }) {
  const root = parentElement.querySelector(".wbv-scroll");
  if (!root) return;
  const wrap = parentElement.querySelector(".wbv");
  const st = root._wbv || (root._wbv = { root, pages: [] });
  buildChrome(st, parentElement);
  st.fixedHeight = !!data.height;
  st.fillOffset = data.fill_offset || 150;
  if (data.height) wrap.style.setProperty("--wbv-height", `${data.height}px`);
  else { fitHeight(st); if (!st.heightSettled) { st.heightSettled = true; settleHeight(st); } }
  if (!st.heightWired) {
    st.heightWired = true;
    const refit = () => requestAnimationFrame(() => fitHeight(st));
    window.addEventListener("scroll", refit, { capture: true, passive: true });
    window.addEventListener("resize", refit, { passive: true });
  }
  st.onAdd = data.selectable ? v => setTriggerValue("add", v) : null;
  st.onStale = v => setTriggerValue("stale", v);
  st.base = data.base;
  st.maxPixels = data.max_pixels || 25000000;
  st.wordsBase = data.words_base;
  st.docs = data.documents || {};
  st.appDoc = data.document_id;
  st.cites = data.cites || {};
  st.hint = data.hint || "";
  st.ocrLow = typeof data.ocr_low === "number" ? data.ocr_low : 0.6;
  const links = Object.values(st.docs).map(d => d.link || "").join(" ");
  if (links !== st.links) { // minted together, up to a minute ago
    st.links = links;
    st.linkExpires = Date.now() + (data.link_ttl_s || 0) * 1000 - 60000;
  }
  if (!data.document_id || !st.docs[data.document_id] || !st.docs[data.document_id].sizes.length) {
    root.innerHTML = "";
    const empty = document.createElement("div");
    empty.className = "wbv-empty";
    empty.textContent = data.empty || "No document selected.";
    root.appendChild(empty);
    st.doc = null;
    st.pages = [];
    st.of.textContent = "";
    st.label.textContent = "";
    wrap.classList.add("is-empty");
    showOcr(st);
    shown(st);
    return;
  }
  wrap.classList.remove("is-empty");
  // A state value, not a trigger: Streamlit keeps the latest when reruns pile up (a trigger
  // could be dropped when a grid click and a J arrive together).
  st.report = v => setStateValue("select", v);
  st.order = data.order || [];
  wireSelection(st, !!data.keys);
  // An older run's data (the app has not yet seen this viewer's latest selection) keeps the
  // document and the target the reviewer already sees.
  const behind = (data.ack || 0) < (st.seq || 0) && !!st.doc && !!st.docs[st.doc];
  const rebuilt = !behind && st.doc !== data.document_id;
  if (rebuilt) build(st, data.document_id);
  else st.link = st.docs[st.doc].link || ""; // a fresh link after the old one ran out
  if (!behind) st.target = data.target;
  st.highlights = data.highlights || [];
  drawHighlights(st, id => selectHere(st, id));
  caption(st);
  showOcr(st);
  warmAll(st);
  const token = `${data.document_id}|${data.target}|${data.page}|${data.scroll_token}`;
  if (!behind && st.token !== token) {
    const already = !rebuilt && st.shown === data.target && data.target; // landed here first
    st.token = token;
    st.shown = data.target;
    if (!already) requestAnimationFrame(() => { scrollToTarget(st, data); prefetch(st); shown(st); });
  }
  root.dataset.target = st.target || "";
}

// Once this viewer's target page is drawn (or there is none), say so once: a deep link's first
// paint (preview.js), drawn while Streamlit booted, gives way to it.
function shown(st) {
  if (st.announced) return;
  const fire = () => {
    if (st.announced) return;
    st.announced = true;
    window.dispatchEvent(new CustomEvent("wb:viewer-shown"));
  };
  const el = st.root.querySelector(".wbv-hl.target");
  const img = el && el.parentElement.querySelector("img");
  if (!img || (img.complete && img.naturalWidth)) { fire(); return; }
  img.addEventListener("load", () => (img.decode ? img.decode().catch(() => {}) : Promise.resolve()).then(fire), { once: true });
  img.addEventListener("error", fire, { once: true });
}

// Keys and selection events from outside the viewer, wired once per viewer element.
function wireSelection(st, keys) {
  st.keys = keys;
  if (st.selectionWired) return;
  st.selectionWired = true;
  window.addEventListener("wb:evidence", e => {
    const id = e.detail && e.detail.id;
    if (!id || !st.wrap.isConnected || !st.pages.length) return;
    e.detail.handled = true; // reported by the viewer: the sender need not tell the app itself
    selectHere(st, id); // in another document too, when the app gave it
  });
  // Capture phase on window: before Streamlit's own shortcut handlers (the Next/Previous
  // buttons' J/K stay the fallback when no viewer is mounted).
  const dirOf = e => {
    if (!st.keys || !st.wrap.isConnected || !st.pages.length) return 0;
    if (e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return 0;
    return e.key === "j" || e.key === "J" ? 1 : e.key === "k" || e.key === "K" ? -1 : 0;
  };
  window.addEventListener("keydown", e => {
    const k = dirOf(e);
    if (!k) return;
    const t = e.composedPath ? e.composedPath()[0] : e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName || ""))) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    step(st, k);
  }, true);
  // J/K pressed while the grid (an iframe) has the focus, forwarded by the grid.
  window.addEventListener("wb:key", e => {
    const k = dirOf(e.detail || {});
    if (k) { e.detail.handled = true; step(st, k); }
  });
}
