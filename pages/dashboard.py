"""Dashboard: how the verifier and the reviewers are doing, across runs and per run."""

import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from workbench.models import ReviewMetrics
from workbench.ui import safe, state
from workbench.ui.widgets import run_label
from workbench.ui.workspace import get_workbench

st.title("Dashboard")
wb = get_workbench()
runs = sorted((r for r in wb.runs() if r.kind != "draft"), key=lambda r: r.created_at, reverse=True)
if not runs:
    st.info("No runs yet: the dashboard fills in once questions have been asked on the **Run** page.")
    st.stop()

labels = {r.run_id: run_label(r) for r in runs}
scope = st.selectbox("Scope", [None, *labels], format_func=lambda i: "All runs" if i is None else labels[i],
                     key="dashboard_scope")
m: ReviewMetrics = wb.metrics(scope)
KAPPA_MIN_LABELS = wb.KAPPA_MIN_LABELS


def pct(x: float | None) -> str:
    return "—" if x is None else f"{x * 100:.0f} %"


def kappa(value: float | None, labels: int) -> str:
    """κ only from KAPPA_MIN_LABELS labels up: below, a number that swings with every label."""
    if labels < KAPPA_MIN_LABELS:
        return "too few labels"
    return "—" if value is None else f"{value:.2f}"


def counted(n: int, word: str) -> str:
    """'1 label', '2 labels': every number a title rests on, in words that read."""
    return f"{n} {word}{'s' if n != 1 else ''}"


def labels_word(n: int) -> str:
    return counted(n, "label")


n_lab = m.agreement_labels
k = st.columns([1, 1, 1.2, 0.9, 1.6])  # room for "too few labels"
k[0].metric("Evidence items", m.total, help=f"over {m.runs} run(s)"
            + (f"; {m.drafts} checked draft(s) are not counted here" if m.drafts else ""))
k[1].metric("Verifier pass rate", pct(m.pass_rate), help=f"verified / extracted, over {m.total} items")
k[2].metric(f"Final pass rate · {labels_word(m.reviewed)}", pct(m.final_pass_rate),
            help=f"with the {m.reviewed} human labels applied, over {m.total} items")
k[3].metric("Reviewed", f"{m.reviewed} / {m.total}", help=f"{pct(m.review_progress)} reviewed by a human")
k[4].metric(f"Cohen's κ · {labels_word(n_lab)}", kappa(m.cohen_kappa, n_lab),
            help=f"verifier vs human agreement beyond chance, over the {n_lab} human labels on items the verifier "
                 f"judged (reviewer-added evidence is no disagreement); shown from {KAPPA_MIN_LABELS} labels up")
if m.runs and m.drafts:
    st.caption(f"{counted(m.runs, 'run')} here; {counted(m.drafts, 'checked draft')} counted on the Check a draft page, "
               "not here.")
# Titles above the charts, not in them: the charts' toolbar covered them.
CHART = {"height": 300, "margin": {"l": 10, "r": 10, "t": 24, "b": 10}}


def chart(fig, title: str) -> None:
    st.markdown(f"**{title}**")
    st.plotly_chart(fig.update_layout(**CHART), width="stretch", config={"displaylogo": False})


c1, c2 = st.columns(2, gap="large")
with c1:
    reasons = m.rejection_reasons
    if reasons:
        fig = px.bar(x=list(reasons.values()), y=[safe.plotly(r) for r in reasons], orientation="h",
                     labels={"x": "items", "y": ""})
        chart(fig, f"Rejection reasons (verifier) · {counted(sum(reasons.values()), 'item')}")
    else:
        st.caption("No rejected evidence.")
with c2:
    order = ["supported", "unsupported"]
    z = [[m.confusion.get(v, {}).get(h, 0) for h in order] for v in order]
    fig = go.Figure(go.Heatmap(z=z, x=[f"human: {h}" for h in order], y=[f"verifier: {v}" for v in order],
                               text=z, texttemplate="%{text}", colorscale="Blues", showscale=False))
    title = (f"Verifier vs human · {labels_word(n_lab)}: agreement {pct(m.agreement)}, "
             + (f"κ {kappa(m.cohen_kappa, n_lab)}" if n_lab >= KAPPA_MIN_LABELS
                else f"κ needs {KAPPA_MIN_LABELS} labels"))
    chart(fig.update_yaxes(autorange="reversed"), title)

c3, c4 = st.columns(2, gap="large")
with c3:
    if m.per_run:
        per = list(reversed(m.per_run))[-20:]
        questions = {r.run_id: r.question for r in runs}

        def short(run_id: str) -> str:  # the question, not the ID, names a run for a reader
            q = questions.get(run_id, run_id)
            return safe.plotly(q if len(q) <= 28 else q[:26] + "…") + f" ({run_id[:6]})"

        # Horizontal bars: run labels read left to right and never run into the legend.
        y = [short(p.run_id) for p in per]
        fig = go.Figure([
            go.Bar(name="pass rate (verifier)", y=y, x=[p.pass_rate for p in per], orientation="h"),
            go.Bar(name="reviewed", y=y, x=[p.review_progress for p in per], orientation="h"),
        ])
        st.markdown(f"**Per run: pass rate and review progress** · {counted(len(per), 'run')}")
        fig.update_layout(**{**CHART, "barmode": "group",
                             "xaxis_tickformat": ".0%", "xaxis_range": [0, 1],
                             "legend": {"orientation": "h", "y": -0.08, "x": 0, "yanchor": "top"},
                             "margin": {"l": 10, "r": 10, "t": 10, "b": 40},
                             "height": max(300, 90 + 46 * len(per))})
        fig.update_yaxes(autorange="reversed", automargin=True)
        st.plotly_chart(fig, width="stretch", config={"displaylogo": False})
    else:
        fig = go.Figure(go.Pie(labels=["reviewed", "not reviewed"], values=[m.reviewed, m.total - m.reviewed],
                               hole=0.55, sort=False))
        chart(fig, f"Review progress · {m.reviewed} of {m.total} items")
with c4:
    levels = ["high", "medium", "low", "insufficient"]
    gc = m.grounding_confidence
    fig = px.bar(x=levels, y=[gc.get(x, 0) for x in levels],
                 labels={"x": "", "y": "runs"}, color=levels,
                 color_discrete_map={"high": "#2e9e5b", "medium": "#e6a23c", "low": "#e06c3c", "insufficient": "#c33"})
    chart(fig.update_layout(showlegend=False), f"Answer confidence · runs per level, {counted(sum(gc.values()), 'run')}")

if m.score_histogram and sum(m.score_histogram):
    fig = px.bar(x=[f"{i / 10:.1f}–{(i + 1) / 10:.1f}" for i in range(len(m.score_histogram))], y=m.score_histogram,
                 labels={"x": "score", "y": "items"})
    chart(fig, f"Verifier score distribution · {sum(m.score_histogram)} items")
st.subheader("Reviewers")
r = st.columns(3)
r[0].metric(f"Between reviewers κ · {m.inter_reviewer_items} item(s)",
            kappa(m.inter_reviewer_kappa, m.inter_reviewer_items),
            help=f"agreement between two reviewers on the {m.inter_reviewer_items} item(s) both labelled")
r[1].metric("Open conflicts", m.open_conflicts,
            help="reviewers disagree and no adjudicator has decided: the Review page lists them first when "
                 "ordered by disagreement")
r[2].metric("Items labelled by two or more", m.inter_reviewer_items)
if m.labelled_by_reviewer:
    st.caption("Progress per reviewer (items labelled / events): " + ", ".join(
        f"{safe.text(k)}: {v} / {m.reviewers.get(k, 0)}" for k, v in m.labelled_by_reviewer.items()))

st.subheader("Teach the verifier")
cal = wb.calibration()
st.caption("Refit the verifier's decision threshold on this workspace's human labels (reviewer-added evidence "
           "included). Agreement with the humans is measured by cross-validation, on labels the fit did not see; "
           "the new threshold applies to new runs only when it agrees better. "
           + (f"In force: **{safe.text(cal.id)}**, threshold {cal.threshold:.2f}." if cal
              else "In force: none (the verifier as shipped)."))
admin = wb.may(state.identity(), "calibrate")
if not admin:
    st.caption("Calibrating and reverting are an admin's.")
b = st.columns([1, 1, 3])
if b[0].button("Calibrate on human labels", icon=":material/model_training:", key="calibrate", disabled=not admin):
    st.session_state["calibration_flash"] = wb.calibrate(identity=state.identity())
    st.rerun()
if cal is not None and b[1].button("Revert", icon=":material/undo:", key="calibrate_revert", disabled=not admin):
    wb.revert_calibration(identity=state.identity())
    st.rerun()
ccal = wb.calibration("claims")
st.caption("The claim checker (Check a draft, `workbench verify`) learns the same way from checked drafts' sentence "
           "labels; the fact check still rejects a changed number, date or name whatever the threshold. "
           + (f"In force: **{safe.text(ccal.id)}**, threshold {ccal.threshold:.2f}." if ccal
              else "In force: none (the claim checker as shipped)."))
c = st.columns([1, 1, 3])
if c[0].button("Calibrate the claim checker", icon=":material/fact_check:", key="calibrate_claims",
               disabled=not admin):
    st.session_state["calibration_flash"] = wb.calibrate(target="claims", identity=state.identity())
    st.rerun()
if ccal is not None and c[1].button("Revert", icon=":material/undo:", key="calibrate_claims_revert",
                                    disabled=not admin):
    wb.revert_calibration("claims", identity=state.identity())
    st.rerun()
flash = st.session_state.pop("calibration_flash", None)
if flash is not None:
    def f(x: float | None) -> str:
        return "—" if x is None else f"{x:.2f}"

    (st.success if flash.applied else st.info)(
        f"**{flash.id}** on {flash.labels} labelled items: held-out κ {f(flash.kappa_before)} → {f(flash.kappa_after)}, "
        f"balanced accuracy {f(flash.balanced_accuracy_before)} → {f(flash.balanced_accuracy_after)}. "
        + safe.text(flash.reason))
