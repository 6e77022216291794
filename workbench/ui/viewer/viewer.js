// Lazy PDF viewer: placeholders sized by aspect ratio, page images loaded near the viewport
// and unloaded far from it, highlight boxes placed in % of the cropbox (PDF points).
const LOAD_MARGIN = "800px 0px";
const KEEP_MARGIN = "4000px 0px";
const LOAD_DELAY_MS = 60;

// The zoom to ask for: the viewer's, or less where the page would pass the server's pixel cap
// (a 14,400 pt page); the server scales down to the cap anyway, this keeps the URL truthful.
function pageZoom(st, div) {
  const area = Math.max(1, +div.dataset.w) * Math.max(1, +div.dataset.h);
  const fit = Math.floor(Math.sqrt(st.maxPixels / area) * 100) / 100;
  return Math.max(0.01, Math.min(st.zoom, fit));
}

function pageUrl(st, div) {
  return `${st.base}/${st.doc}/${div.dataset.pageNumber}?z=${pageZoom(st, div)}`;
}

function build(st, root, data) {
  const scroll = root;
  scroll.innerHTML = "";
  st.pages = [];
  st.doc = data.document_id;
  st.base = data.base;
  st.maxPixels = data.max_pixels || 25000000;
  const width = scroll.clientWidth || 800;
  const maxW = Math.max(...data.sizes.map(s => s[0]));
  const dpr = window.devicePixelRatio || 1;
  st.zoom = Math.min(3, Math.max(1, Math.round((width * dpr / maxW) * 4) / 4));
  data.sizes.forEach((s, i) => {
    const div = document.createElement("div");
    div.className = "wbv-page";
    div.dataset.pageNumber = String(i + 1);
    div.style.aspectRatio = `${s[0]} / ${s[1]}`;
    div.dataset.w = s[0];
    div.dataset.h = s[1];
    const num = document.createElement("span");
    num.className = "wbv-num";
    num.textContent = String(i + 1);
    div.appendChild(num);
    scroll.appendChild(div);
    st.pages.push(div);
  });
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
}

function load(st, div) {
  if (div.querySelector("img")) return;
  const img = document.createElement("img");
  img.alt = `page ${div.dataset.pageNumber}`;
  img.decoding = "async";
  img.src = pageUrl(st, div);
  div.insertBefore(img, div.firstChild);
}

function unload(div) {
  const img = div.querySelector("img");
  if (img) { img.src = ""; img.remove(); }
}

function drawHighlights(st, data, onSelect) {
  for (const el of st.root.querySelectorAll(".wbv-hl")) el.remove();
  for (const h of data.highlights) {
    const div = st.pages[h.page - 1];
    if (!div) continue;
    const w = +div.dataset.w, hgt = +div.dataset.h;
    const el = document.createElement("div");
    el.className = "wbv-hl " + (h.id === data.target ? "target" : "other");
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

function scrollToTarget(st, data) {
  const boxes = data.highlights.filter(h => h.id === data.target);
  let page, y = 0;
  if (boxes.length) {
    page = st.pages[boxes[0].page - 1];
    y = boxes[0].y0 / +page.dataset.h;
  } else if (data.page) {
    page = st.pages[data.page - 1];
  }
  if (!page) return;
  const top = page.offsetTop + y * page.clientHeight - st.root.clientHeight / 3;
  st.root.scrollTop = Math.max(0, top);
}

export default function ({ data, parentElement, setTriggerValue }) {
  const root = parentElement.querySelector(".wbv-scroll");
  if (!root) return;
  root.style.height = `${data.height}px`;
  const st = root._wbv || (root._wbv = { root });
  if (!data.sizes || !data.sizes.length) {
    root.innerHTML = `<div class="wbv-empty">${data.empty || "No document selected."}</div>`;
    st.doc = null;
    return;
  }
  if (st.doc !== data.document_id) build(st, root, data);
  drawHighlights(st, data, id => setTriggerValue("select", id));
  const token = `${data.document_id}|${data.target}|${data.page}|${data.scroll_token}`;
  if (st.token !== token) {
    st.token = token;
    requestAnimationFrame(() => scrollToTarget(st, data));
  }
  root.dataset.target = data.target || "";
}
