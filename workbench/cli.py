"""The `workbench` command line: the app's jobs, headless.

Contract: exit 0 on success; exit 2 with one line on stderr for bad input or usage (never a
traceback); `--json` prints one JSON object per line on stdout. Each command is a `_cmd_*`
function; keep heavy imports inside them so `workbench --help` stays fast."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from workbench import __version__
from workbench.errors import (
    ExportBlockedError,
    PasswordRequiredError,
    ReviewerRequiredError,
    SignInError,
    WorkbenchError,
)


class UsageError(WorkbenchError):
    pass


EXAMPLES = """examples:
  workbench ingest policy.pdf --source-type policy
  workbench ask policy.pdf --question "How often must audit logs be reviewed?"
  workbench ask policy.pdf --questions checklist.txt --out answers.json
  workbench verify policy.pdf --claim "Audit logs are kept for a year." --claim "MFA is required."
  workbench locate policy.pdf --quotes quotes.txt --json
  workbench runs --json
  workbench show RUN_ID
  workbench review RUN_ID REQ-P003 --label unsupported --reviewer dana --note "about storage"
  workbench export RUN_ID --format bibtex --out refs.bib
  workbench table contracts/*.pdf --questions contract --json
  workbench table export TABLE_ID --format xlsx --out table.xlsx
  workbench table correct TABLE_ID services.pdf "Governing law" --answer Delaware --reason "§12.3" --reviewer dana

--json prints one JSON object per line. Exit status: 0 done, 2 bad input or not found."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2; main() prefixes "workbench: "
        sub = self.prog.split(maxsplit=1)[1:]  # "workbench review" -> ["review"], "workbench" -> []
        raise UsageError(f"{sub[0]}: {message} (see --help)" if sub else f"{message} (see --help)")


def emit(rows: Iterable[dict[str, Any]]) -> None:
    for row in rows:
        sys.stdout.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def read_lines(path: str) -> list[str]:
    """Non-empty lines of a text file (quotes, questions, claims), stripped."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"{path}: no such file")
    return [line.strip() for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]


def read_pdf_arg(path: str) -> Path:
    p = Path(path)
    if not p.exists():
        raise UsageError(f"{path}: no such file")
    if p.is_dir():
        raise UsageError(f"{path}: is a folder, not a PDF file")
    return p


def _settings():
    from workbench.config import get_settings

    return get_settings()


# --- secrets: read from stdin or the environment, never from the command line (`ps` shows it) ---
PDF_PASSWORD_ENV = "WORKBENCH_PDF_PASSWORD"
ACCOUNT_PASSWORD_ENV = "WORKBENCH_PASSWORD"  # the signed-in reviewer's, with sign-in on
PASSWORD_ON_ARGV = ("--password puts the PDF password on the command line, where every user of this machine "
                    f"can read it in the process list: use --password-stdin or {PDF_PASSWORD_ENV}")


def _pdf_password_options(s: argparse.ArgumentParser) -> None:
    s.add_argument("--password-stdin", action="store_true",
                   help=f"read the PDF password from the first line of stdin (else ${PDF_PASSWORD_ENV})")
    s.add_argument("--password", help=argparse.SUPPRESS)  # old scripts only: works, and warns (PASSWORD_ON_ARGV)


def _read_secret(prompt: str) -> str:
    """One line of stdin; typed at a terminal, a prompt that does not echo it."""
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass(prompt)
    return sys.stdin.readline().rstrip("\r\n")


def _pdf_password(args: argparse.Namespace) -> str | None:
    """The password of encrypted PDFs: stdin with --password-stdin, else $WORKBENCH_PDF_PASSWORD;
    read once per command. A --password VALUE (kept for old scripts) works but warns on stderr."""
    if "pdf_password" not in vars(args):
        from workbench.config import env_value

        if getattr(args, "password", None) is not None:
            print(f"workbench: warning: {PASSWORD_ON_ARGV}", file=sys.stderr)
            args.pdf_password = args.password
        elif getattr(args, "password_stdin", False):
            args.pdf_password = _read_secret("PDF password: ") or None
        else:
            args.pdf_password = env_value(PDF_PASSWORD_ENV) or None
    return args.pdf_password


# --- commands --------------------------------------------------------------------------------
def _cmd_ingest(args: argparse.Namespace) -> int:
    """Open each PDF, keep it in the workspace (content-addressed) and report it; the first
    bad file stops with exit 2 (one stderr line)."""
    from workbench.service import Workbench

    wb = Workbench(_settings())
    if args.queue:
        return _submit(wb, args, [dict(kind="ingest", paths=[read_pdf_arg(f)]) for f in args.files])
    for f in args.files:
        doc = wb.ingest(read_pdf_arg(f), password=_pdf_password(args), source_type=args.source_type,
                        on_ocr=_ocr_progress(Path(f).name) if sys.stderr.isatty() else None)
        row = {"document_id": doc.id, "filename": doc.filename, "pages": doc.pages,
               "has_text_layer": doc.has_text_layer, "pages_without_text": doc.pages_without_text,
               "ocr_pages": [o.model_dump() for o in doc.ocr_pages], "unread_pages": doc.unread_pages,
               "title": doc.title, "author": doc.author, "created": doc.created,
               "source_type": doc.source_type, "encrypted": doc.encrypted, "warnings": doc.warnings}
        if args.json:
            emit([row])
        else:
            print(f"{doc.filename}: {doc.pages} pages, id {doc.id[:12]}, "
                  f"{'text layer' if doc.has_text_layer else 'NO text layer'}")
            for w in doc.warnings:
                print(f"  warning: {w}")
    return 0


def _ocr_progress(name: str):
    """Pages read by OCR, on one stderr line (a terminal only): a scan takes seconds a page."""
    def on_ocr(done: int, total: int) -> None:
        print(f"\r{name}: reading by OCR, page {done} of {total}", end="\n" if done == total else "",
              file=sys.stderr, flush=True)
    return on_ocr


def _ocr_read_before(settings):
    """Pages of a file the workspace has read by OCR already (its parse cache), so `locate` on an
    ingested scan quotes what ingest read instead of reading it again; None without a workspace."""
    folder = settings.data_dir / "parsed"
    if not folder.is_dir():
        return None
    from workbench.pdf.cache import ParsedCache

    def never_parse(document_id: str):
        raise LookupError(document_id)

    return ParsedCache(folder, never_parse).ocr_reads


def _cmd_locate(args: argparse.Namespace) -> int:
    """Anchor each quote of QUOTES_FILE: page(s), offsets, the document's text, SHA-256, boxes. A
    quote not found verbatim (typed from the paper original of a scan OCR misread, say) gets the
    closest passage as a candidate, flagged with its similarity ("closest"), never as an anchor."""
    from workbench.pdf import open_pdf

    quotes = read_lines(args.quotes)
    settings = _settings()
    doc = open_pdf(read_pdf_arg(args.file), password=_pdf_password(args), settings=settings,
                   ocr_known=_ocr_read_before(settings))
    for quote in quotes:
        span = doc.locate(quote)
        near = doc.closest(quote) if span is None else None
        if span is None:
            row: dict[str, Any] = {"quote": quote, "found": False, "page": None, "page_label": None, "pages": [],
                                   "start": None,
                                   "end": None, "text": None, "text_sha256": None, "rects": [],
                                   "ocr_confidence": None, "ocr_min_confidence": None,
                                   "closest": None if near is None else {
                                       "similarity": near.similarity, "page": near.span.page,
                                       "page_label": near.span.page_label, "start": near.span.start,
                                       "end": near.span.end, "text": near.span.text,
                                       "rects": [list(r) for r in near.span.rects],
                                       "ocr_confidence": near.span.ocr_confidence}}
        else:
            row = {"quote": quote, "found": True, "page": span.page, "page_label": span.page_label,
                   "pages": span.pages, "start": span.start,
                   "end": span.end, "text": span.text, "text_sha256": span.text_sha256,
                   "rects": [list(r) for r in span.rects],
                   "ocr_confidence": span.ocr_confidence, "ocr_min_confidence": span.ocr_min_confidence}
        if args.json:
            emit([row])
        elif span is None:
            print(f"NOT FOUND  {quote[:70]}")
            if near is not None:  # a candidate for a human to check, never an anchor
                print(f"  closest (not verbatim, similarity {near.similarity:.2f}): {near.span.cite} "
                      f"[{near.span.start}:{near.span.end}] {' '.join(near.span.text.split())[:70]}")
        else:
            print(f"{span.cite} [{span.start}:{span.end}] {len(span.rects)} boxes  {quote[:60]}")
    return 0


def _cmd_ask(args: argparse.Namespace) -> int:
    """Ingest the PDFs, run each question, write the audit trail(s): a JSON object for
    --question, a JSON list for --questions; to --out (then one summary line per run on
    stdout) or to stdout. Stage progress goes to stderr when it is a terminal."""
    from workbench.service import Workbench

    questions = [args.question] if args.question is not None else read_lines(args.questions)
    if not any(q.strip() for q in questions):
        raise UsageError("no question given: pass --question TEXT or --questions FILE with one question per line")
    out = Path(args.out) if args.out else None
    if out is not None and (out.is_dir() or not out.parent.is_dir()):
        raise UsageError(f"--out {args.out}: not a writable file path (does its folder exist?)")
    paths = [read_pdf_arg(f) for f in args.files]
    wb = Workbench(_settings())
    if args.queue:  # stored PDFs by id; the worker ingests the others
        stored = {p: _stored_id(wb, p) for p in paths}
        return _submit(wb, args, [dict(kind="ask", questions=questions, backend=args.backend,
                                       paths=[p for p, i in stored.items() if not i],
                                       document_ids=[i for i in stored.values() if i])])
    doc_ids = [_stored_id(wb, p) or wb.ingest(p, password=_pdf_password(args), source_type=args.source_type).id
               for p in paths]

    def progress(ev) -> None:
        counts = " ".join(f"{k}={v}" for k, v in ev.counts.items())
        said = f" ({ev.message})" if ev.message and ev.status == "progress" else ""
        print(f"[{ev.question_index + 1}/{ev.question_total}] {ev.stage} {ev.status}{said} {counts}".rstrip(),
              file=sys.stderr)

    runs = wb.ask(questions, doc_ids, backend=args.backend or wb.settings.backend, source_type=_run_type(args),
                  on_event=progress if sys.stderr.isatty() else None)
    trails = [r.audit_trail() for r in runs]
    if out is None:
        if args.json:  # one audit trail (seed 000's JSON) per line
            emit(trails)
        else:
            _print_answers(wb, runs)
    else:
        payload: Any = trails[0] if args.question is not None else trails
        text = json.dumps(payload, ensure_ascii=False, indent=2, default=str) + "\n"
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out)
        emit({"run_id": r.run_id, "question": r.question, "result": r.answer.result or "ANSWERED",
              "grounding_confidence": r.answer.grounding_confidence} for r in runs)
    return _report_backend_failures(runs)


def _report_backend_failures(runs: list) -> int:
    """A failed backend stage is visible: one stderr line; exit 2 when it left a run without an
    answer (the audit trail, with the raw reply, is written first)."""
    failed = [r for r in runs if r.failures]
    if not failed:
        return 0
    unanswered = [r for r in failed if not r.answer.final_answer]
    f = failed[0].failures[0]
    print(f"workbench: {len(failed)} of {len(runs)} run(s) had a failed {failed[0].backend} backend stage "
          f"({f.stage}: {' '.join(f.message.split())[:300]}); the audit trail records it"
          + (", and no answer was composed" if unanswered else ""), file=sys.stderr)
    return 2 if unanswered else 0


def _stored_id(wb, path: Path) -> str | None:
    """The document ID when these exact bytes are already in the store (content-addressed),
    so a repeated `ask` does not parse the PDF again; None when it must be ingested."""
    import hashlib

    from workbench.errors import NotFoundError

    doc_id = hashlib.sha256(path.read_bytes()).hexdigest()
    try:
        wb.document(doc_id)
    except NotFoundError:
        return None
    return doc_id


def _print_answers(wb, runs) -> None:
    """Each run in plain language: the answer with its confidence, then the evidence it cites
    (ID, printed page, quote), and how to get the full audit trail."""
    for r in runs:
        rr = wb.reviewed(r.run_id)
        answer = rr.answer
        print(f"Q: {r.question}")
        if answer.result == "NO_AUTHORITATIVE_EVIDENCE" or not answer.final_answer:
            print("No authoritative evidence: none of the documents holds a verified quote that answers this, "
                  "so no claim is made.")
            if answer.message:
                print(f"  {answer.message}")
            for m in answer.missing_evidence:
                print(f"  missing: {m}")
        else:
            print(f"A: {answer.final_answer}")
            print(f"Confidence: {answer.grounding_confidence} · {round(answer.support_ratio * 100)} % of sentences "
                  f"supported · citation coverage {round(answer.citation_coverage * 100)} %")
            cited = {c for s in answer.sentences for c in s.citations}
            for st in rr.statuses:
                ev = st.evidence
                if ev.requirement_id in cited:
                    quote = " ".join(ev.exact_quote.split())
                    where = ev.span.cite if ev.span else "not located"
                    print(f"  [{ev.requirement_id}] {where}: \u201c{quote[:160]}{'…' if len(quote) > 160 else ''}\u201d")
            for m in answer.missing_evidence:  # a part no quote answers; a document that says nothing
                print(f"  missing: {m}")
        print(f"Run {r.run_id}: `workbench show {r.run_id} --json` prints the audit trail.")
        print()
    sys.stdout.flush()


def _cmd_verify(args: argparse.Namespace) -> int:
    """Ingest the PDF, check each claim (one per line) against it: per claim its verdict
    (supported, contradicted or not stated; `supported` the boolean of old), score, reason and the
    evidence spans with page, offsets, text and boxes, the deciding span first."""
    from workbench.service import Workbench

    claims = [" ".join(c.split()) for c in args.claim or [] if c.strip()]
    if args.claims:
        from_file = read_lines(args.claims)
        if not from_file:
            raise UsageError(f"{args.claims}: no claims in the file: write one claim per line")
        claims += from_file
    if not claims:
        raise UsageError("no claim given: pass --claim TEXT (repeatable) or --claims FILE with one claim per line")
    path = read_pdf_arg(args.file)
    wb = Workbench(_settings())
    if args.queue:
        return _submit(wb, args, [dict(kind="verify", claims=claims, paths=[path], backend=args.backend or "rules")])
    doc_id = wb.ingest(path, password=_pdf_password(args)).id
    checks = wb.check_claims(claims, [doc_id], backend=args.backend or "rules")
    for c in checks:
        row = {"claim": c.claim, "verdict": c.verdict, "supported": c.supported, "score": c.score, "reason": c.reason,
               "evidence": [{"page": e.page, "page_label": e.page_label, "start": e.start, "end": e.end, "text": e.text,
                             "rects": [list(r) for r in e.rects]} for e in c.evidence]}
        if args.json:
            emit([row])
        else:
            mark = {"supported": "SUPPORTED   ", "contradicted": "CONTRADICTED"}.get(c.verdict, "NOT STATED  ")
            where = f" ({c.evidence[0].cite})" if c.evidence else ""
            print(f"{mark} {c.score:.2f}{where}  {c.claim}\n    {c.reason}")
    return 0


def _cmd_check_draft(args: argparse.Namespace) -> int:
    """Check a drafted answer (plain text or Markdown) sentence by sentence against PDFs, store it
    as a checked draft (a run of kind draft, reviewable like any run) and print each sentence's
    verdict; --out writes the checked draft as md, html or json."""
    import re

    from workbench.models import verdict_summary
    from workbench.service import Workbench

    draft_path = Path(args.draft)
    if not draft_path.is_file():
        raise UsageError(f"{args.draft}: no such file")
    draft = draft_path.read_text(encoding="utf-8", errors="replace")
    wb = Workbench(_settings())
    doc_ids = [d if re.fullmatch(r"[0-9a-f]{64}", d) else wb.ingest(read_pdf_arg(d), password=_pdf_password(args)).id
               for d in args.documents]
    run = wb.check_draft(draft, doc_ids, title=args.title or draft_path.name, markdown=not args.plain)
    rr = wb.reviewed(run.run_id)
    if args.out:
        fmt = args.format or Path(args.out).suffix.lstrip(".")
        data, _, _ = wb.export_draft(run.run_id, fmt)
        Path(args.out).write_bytes(data)
    if args.json:
        emit([json.loads(wb.export_draft(run.run_id, "json")[0])])
        return 0
    statuses = {st.evidence.requirement_id: st for st in rr.statuses}
    names = {d.id: d.title or d.filename for d in wb.documents()}
    for n, s in enumerate(rr.answer.sentences, 1):
        mark = {"supported": "SUPPORTED   ", "contradicted": "CONTRADICTED"}.get(s.verdict, "NOT STATED  ")
        print(f"{n:>3}. {mark} {s.score or 0:.2f}  {s.text}\n     {s.reason}")
        if s.verdict == "contradicted":  # the clause that says otherwise, where it is
            for rid in s.citations:
                if (st := statuses.get(rid)) is not None:
                    sp = st.evidence.span
                    where = f"{names.get(st.evidence.document_id, st.evidence.document_id[:12])}, " \
                            f"{sp.cite if sp else 'not located'}"
                    print(f"     Contradicted by {rid} ({where}): \"{' '.join(st.evidence.exact_quote.split())}\"")
    print(f"run {run.run_id}: {round(rr.answer.support_ratio * 100)} % of sentences supported ({rr.badge}): "
          f"{verdict_summary(rr.answer.sentences)}")
    return 0


def _cmd_runs(args: argparse.Namespace) -> int:
    """Stored runs, newest first."""
    from workbench.service import Workbench

    for run in Workbench(_settings()).runs():
        row = {"run_id": run.run_id, "question": run.question, "created_at": run.created_at.isoformat(),
               "backend": run.backend, "document_ids": run.document_ids, "evidence": len(run.evidence),
               "verified": sum(v.verified for v in run.verifications),
               "grounding_confidence": run.answer.grounding_confidence}
        if args.json:
            emit([row])
        else:
            print(f"{run.run_id}  {row['created_at'][:19]}  {row['verified']}/{row['evidence']} verified  {run.question}")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    """A run's audit trail (re-verified against the stored PDFs), each extracted requirement
    with the verifier's verdict, the human label and the final status."""
    from workbench.models import cite_page
    from workbench.service import Workbench

    trail = Workbench(_settings()).audit_trail(args.run)
    if args.json:
        emit([trail])
        return 0
    after = trail["after_review"]
    print(f"run {trail['run_id']}  {trail['created_at'][:19]}  {trail['question']}")
    for problem in trail["record_problems"]:
        print(f"RECORD PROBLEM: {problem}")
    print(f"confidence {trail['machine_answer']['grounding_confidence']} (after review: {after['grounding_confidence']}, "
          f"support {after['support_ratio']:.0%} {after['badge']}, citation coverage {after['citation_coverage']:.0%})")
    for req in trail["extracted_requirements"]:
        human = req["human_label"] or "-"
        flag = ("" if req["hash_ok"] else "  HASH MISMATCH") + ("  ADDED BY REVIEWER" if req["human_added"] else "") \
            + ("  REVIEWERS DISAGREE" if req["conflict"] else "")
        where = cite_page(req["page"], req.get("page_label")) if req["page"] else "p. -"
        print(f"  {req['requirement_id']:<10} {where}  verifier {req['verifier_verdict']:<11} human {human:<11} "
              f"final {req['final_status']}{flag}  {req['exact_quote'][:60]}")
    if after["revisions"]:
        print("machine answer:")
        machine = trail["machine_answer"]
        print(f"  {machine['final_answer'] or machine.get('result') or '(none)'}")
        for r in after["revisions"]:
            events = ", ".join(map(str, r["triggered_by"])) or "hash re-check"
            change = [f"+{i}" for i in r["now_citable"]] + [f"-{i}" for i in r["no_longer_citable"]]
            print(f"revision {r['revision']} (events {events}): {' '.join(change)}; "
                  f"{len(r['dropped_sentences'])} sentence(s) dropped, {len(r['added_sentences'])} added")
        print("answer after review:")
    print(after["final_answer"] or after["result"] or "(no answer)")
    return 0


def _event_row(ev) -> dict[str, Any]:
    return {"id": ev.id, "run_id": ev.run_id, "requirement_id": ev.requirement_id, "label": ev.label,
            "reviewer": ev.reviewer, "note": ev.note, "timestamp": ev.timestamp.isoformat(),
            "previous_label": ev.previous_label, "verifier_verdict": ev.verifier_verdict, "kind": ev.kind}


def _cmd_review(args: argparse.Namespace) -> int:
    """Append a human label; exit 0 only once the event is durably stored."""
    from workbench.service import Workbench

    wb = Workbench(_settings())
    ev = wb.review(args.run, args.evidence_id, args.label, args.reviewer, args.note, adjudication=args.adjudicate,
                   identity=_signed_in(wb, args))
    if args.json:
        emit([_event_row(ev)])
    else:
        before = ev.previous_label or "no human label"
        print(f"{ev.requirement_id}: {before} -> {ev.label} by {ev.reviewer} (verifier: {ev.verifier_verdict}); "
              f"event {ev.id} stored")
    return 0


def _read_password(args: argparse.Namespace) -> str | None:
    """A password from the first line of stdin (--password-stdin), never from the command line."""
    if not getattr(args, "password_stdin", False):
        return None
    return sys.stdin.readline().rstrip("\r\n")


def _client() -> str:
    """Who a sign-in from this command line comes from, for the throttle and the security log."""
    import getpass

    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):
        return "cli"


def _signed_in(wb, args: argparse.Namespace):
    """With sign-in required (this process's setting or the store's record), the identity of
    --reviewer, signed in with the password on stdin."""
    if not wb.sign_in_required():
        return None
    from workbench.config import env_value

    password = _read_password(args)
    if password is None:
        password = env_value(ACCOUNT_PASSWORD_ENV)
    if password is None:
        raise UsageError("sign-in is on: pass --password-stdin and the reviewer's password on stdin "
                         f"(or set {ACCOUNT_PASSWORD_ENV})")
    return wb.sign_in(args.reviewer, password, client=_client())


def _acting(wb, args: argparse.Namespace):
    """The identity of `--as NAME` (None without it), signed in with WORKBENCH_PASSWORD, else the
    first line of stdin: admin actions from the command line need an account's credentials."""
    from workbench.config import cli_password

    if not getattr(args, "as_", None):
        return None
    password = cli_password()
    if password is None:
        password = sys.stdin.readline().rstrip("\r\n")
    return wb.sign_in(args.as_, password, client=_client())


def _cmd_user(args: argparse.Namespace) -> int:
    """Accounts for sign-in, an admin's (--as ADMIN; while no account exists, the owner of the
    data folder creates the first admin): add NAME --role R (password on stdin with
    --password-stdin, or --oidc for an identity-provider user by e-mail), list, passwd NAME (an
    admin, or the account itself with its old password), role NAME --role R, disable / enable NAME.
    Passwords come from stdin, one a line: the acting password first (unless WORKBENCH_PASSWORD
    holds it), then the new one."""
    from workbench.service import Workbench

    wb = Workbench(_settings())
    if args.action != "list" and not args.name:
        raise UsageError(f"user {args.action}: name the account (workbench user {args.action} NAME)")
    if args.action == "passwd" and (not args.as_ or args.as_ == args.name):
        from workbench.config import cli_password

        old = cli_password() or sys.stdin.readline().rstrip("\r\n")
        new = sys.stdin.readline().rstrip("\r\n")
        wb.change_password(args.name, new, old_password=old, client=_client())
        print(f"password of {args.name} changed; its open sessions have ended")
        return 0
    me = _acting(wb, args)
    if args.action == "list":
        for u in wb.users(identity=me):
            emit([u.model_dump()]) if args.json else print(f"{u.name}  {u.role}{'  disabled' if u.disabled else ''}")
        return 0
    if args.action == "add":
        password = _read_password(args)
        if password is None and not args.oidc:
            raise UsageError("user add: pass the password on stdin with --password-stdin (or --oidc for an "
                             "identity-provider account without one)")
        user = wb.add_user(args.name, args.role, None if args.oidc else password, oidc=args.oidc, identity=me)
        emit([user.model_dump(exclude={"session"})]) if args.json else print(f"account {user.name} ({user.role}) added")
    elif args.action == "passwd":
        wb.change_password(args.name, sys.stdin.readline().rstrip("\r\n"), identity=me)
        print(f"password of {args.name} changed; its open sessions have ended")
    elif args.action == "role":
        wb.set_role(args.name, args.role, identity=me)
        print(f"{args.name} is now {args.role}; its open sessions have ended")
    elif args.action == "disable":
        wb.disable_user(args.name, identity=me)
        print(f"{args.name} disabled; its open sessions have ended")
    else:
        wb.enable_user(args.name, identity=me)
        print(f"{args.name} enabled")
    return 0


def _cmd_security_log(args: argparse.Namespace) -> int:
    """The security log, newest last (an admin's: --as ADMIN)."""
    from workbench.service import Workbench

    wb = Workbench(_settings())
    for e in wb.security_events(identity=_acting(wb, args), limit=args.limit):
        if args.json:
            emit([e.model_dump(mode="json")])
        else:
            print(f"{e.at.isoformat()[:19]}  {e.kind:<18} {e.who or '-'}  {e.client or '-'}  {e.detail}")
    return 0


def _cmd_add_evidence(args: argparse.Namespace) -> int:
    """Add evidence the run missed (a verbatim quote or exact offsets), human-Supported."""
    from workbench.service import Workbench

    if args.quote is None and (args.start is None or args.end is None):
        raise UsageError("add-evidence: give --quote TEXT, or both --start S and --end E (see --help)")
    wb = Workbench(_settings())
    st = wb.add_evidence(args.run, args.document_id, quote=args.quote, start=args.start, end=args.end,
                         reviewer=args.reviewer, note=args.note, identity=_signed_in(wb, args))
    ev = st.evidence
    row = {**ev.audit_dict(), "human_added": st.human_added, "final_status": st.final_status,
           "reviewer": st.reviewer, "note": st.note, "run_id": args.run}
    if args.json:
        emit([row])
    else:
        print(f"{ev.requirement_id} added to run {args.run} by {st.reviewer}: p.{row['page']} "
              f"[{row['start']}:{row['end']}] {len(row['rects'])} boxes  {ev.exact_quote[:60]}")
    return 0


def _cmd_calibrate(args: argparse.Namespace) -> int:
    """Refit the verifier's decision on the workspace's human labels (cross-validated), or
    revert to the calibration before the one in force."""
    from workbench.service import Workbench

    wb = Workbench(_settings())
    target = "claims" if args.claims else "verify"
    if args.revert:
        cal = wb.revert_calibration(target, identity=_acting(wb, args))
        row = {"reverted": True, "target": target, "in_force": cal.model_dump(mode="json") if cal else None}
        if args.json:
            emit([row])
        else:
            shipped = "the claim checker as shipped" if args.claims else "the verifier as shipped"
            print("calibration reverted; in force now: " + (f"{cal.id} (threshold {cal.threshold})" if cal
                                                            else f"none ({shipped})"))
        return 0
    cal = wb.calibrate(target=target, identity=_acting(wb, args))
    if args.json:
        emit([cal.model_dump(mode="json")])
        return 0

    def f(x):
        return "n/a" if x is None else f"{x:.3f}"

    print(f"{cal.id}: {cal.labels} labelled items ({cal.positives} supported)")
    print(f"held-out kappa {f(cal.kappa_before)} -> {f(cal.kappa_after)}, balanced accuracy "
          f"{f(cal.balanced_accuracy_before)} -> {f(cal.balanced_accuracy_after)} ({cal.folds} folds)")
    if cal.threshold is not None:
        print(f"threshold {cal.threshold:.3f} on the verifier's score")
    print(cal.reason)
    return 0


def _cmd_history(args: argparse.Namespace) -> int:
    """Review events in the order they were recorded."""
    from workbench.service import Workbench

    wb = Workbench(_settings())
    for problem in wb.record_problems(args.run):  # on stderr: stdout stays the list of events
        print(f"RECORD PROBLEM: {problem}", file=sys.stderr)
    for ev in wb.history(args.run, args.evidence_id):
        if args.json:
            emit([_event_row(ev)])
        else:
            note = f"  \"{ev.note}\"" if ev.note else ""
            print(f"{ev.timestamp.isoformat()[:19]}  {ev.requirement_id:<10} {ev.previous_label or '-'} -> {ev.label}"
                  f"  by {ev.reviewer} (verifier: {ev.verifier_verdict}){note}")
    return 0


def _cmd_metrics(args: argparse.Namespace) -> int:
    """Verifier-vs-human agreement and review progress, for one run or overall."""
    from workbench.service import Workbench

    m = Workbench(_settings()).metrics(args.run)
    if args.json:
        emit([m.model_dump(mode="json")])
        return 0
    scope = f"run {m.run_id}" if m.run_id else f"{m.runs} runs"
    kappa = "n/a" if m.cohen_kappa is None else f"{m.cohen_kappa:.3f}"
    print(f"{scope}: {m.reviewed}/{m.total} reviewed ({m.review_progress:.0%}), verifier pass rate {m.pass_rate:.0%}, "
          f"final {m.final_pass_rate:.0%}")
    print(f"agreement {'n/a' if m.agreement is None else f'{m.agreement:.0%}'}, Cohen's kappa {kappa}, "
          f"overrides {m.overrides}")
    for v, row in m.confusion.items():
        print(f"  verifier {v:<11} human supported {row['supported']:>4}  unsupported {row['unsupported']:>4}")
    for reason, d in m.override_by_reason.items():
        print(f"  override rate when verifier said {reason}: {d['rate']:.0%} of {int(d['reviewed'])}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    """Write one export file. Blocked by the safety gate or a hash mismatch → exit 2, one line."""
    import os

    from workbench.service import Workbench

    if not args.runs and not args.all:
        raise UsageError("workbench export: name at least one RUN, or --all for every stored run")
    if args.reason is not None and not args.force:
        raise UsageError("workbench export: --reason goes with --force (it records why the gate was skipped)")
    if args.force and not (args.reason or "").strip():
        raise UsageError("workbench export: --force needs --reason TEXT saying why the safety gate may be skipped")
    out = Path(args.out)
    if out.is_dir():
        raise UsageError(f"{args.out}: is a folder; give --out a file path")
    if not out.parent.exists():
        raise UsageError(f"{out.parent}: no such folder for --out")
    wb = Workbench(_settings())
    res = wb.export(None if args.all else args.runs, args.format, force=args.force, reason=args.reason, by=args.by,
                    identity=_acting(wb, args) if args.force else None)
    if res.is_zip and out.suffix.lower() != ".zip":
        raise UsageError(f"these runs cite several documents, so the annotated PDFs come as a zip (one PDF per "
                         f"document): give --out a .zip path, e.g. {out.with_suffix('.zip')}")
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    tmp.write_bytes(res.data)
    os.replace(tmp, out)
    row = {"out": str(out), "format": res.format, "media_type": res.media_type, "bytes": len(res.data),
           "hashes_checked": res.hashes_checked, "gate_passed": all(g.passed for g in res.gate),
           "forced": res.forced.model_dump(mode="json") if res.forced else None}
    if args.json:
        emit([row])
    else:
        note = f"; safety gate overridden by {res.forced.by}: {res.forced.reason}" if res.forced else ""
        print(f"wrote {out} ({res.format}, {len(res.data)} bytes, {res.hashes_checked} quote hashes re-checked){note}")
    return 0


def _submit(wb, args: argparse.Namespace, jobs: list[dict[str, Any]]) -> int:
    """Queue jobs for `workbench worker` processes and print their ids (--json: {"job_id"})."""
    if not wb.settings.queue_url:
        raise UsageError("--queue needs a job queue: set WORKBENCH_QUEUE_URL to a Redis URL "
                         "(e.g. redis://127.0.0.1:6379/0) and start `workbench worker`")
    identity = _acting(wb, args)  # the job carries who asked, signed; the worker re-reads the account
    if identity is None and wb.sign_in_required():
        raise UsageError("sign-in is on: queue jobs as an account, with --as NAME and the password from "
                         "WORKBENCH_PASSWORD (or the first line of stdin)")
    for spec in jobs:
        info = wb.submit(password=_pdf_password(args), source_type=getattr(args, "source_type", "auto"),
                         identity=identity, **spec)
        if args.json:
            emit([{"job_id": info.job_id}])
        else:
            print(info.job_id)
    return 0


def _job_row(info) -> dict[str, Any]:
    return {"job_id": info.job_id, "kind": info.kind, "status": info.status, "progress": round(info.progress, 3),
            "message": info.message, "attempts": info.attempts, "run_ids": info.run_ids,
            "document_ids": info.document_ids, "error": info.error, "refused": info.refused,
            "requested_by": info.requested_by.name if info.requested_by else None,
            "created_at": info.created_at.isoformat(),
            "ended_at": info.ended_at.isoformat() if info.ended_at else None}


def _print_jobs(infos: list, as_json: bool) -> None:
    if as_json:
        emit(_job_row(i) for i in infos)
        return
    for i in infos:
        tail = f"runs {', '.join(i.run_ids)}" if i.run_ids else (i.error or i.message)
        print(f"{i.job_id}  {i.kind:<6} {i.status:<8} {i.progress:>4.0%}  {tail}")


def _cmd_jobs(args: argparse.Namespace) -> int:
    """Jobs on the queue, newest first: id, kind, status, progress, run ids when finished."""
    from workbench.service import Workbench

    wb = Workbench(_settings())
    if not wb.settings.queue_url:
        raise UsageError("no job queue: jobs run inside the app when WORKBENCH_QUEUE_URL is unset; "
                         "set it to a Redis URL to queue jobs for `workbench worker`")
    _print_jobs(wb.job_list(), args.json)
    return 0


def _cmd_wait(args: argparse.Namespace) -> int:
    """Wait until each job is finished or failed (or --timeout): exit 0 when all finished,
    1 when one failed or the time ran out (one stderr line says which)."""
    from workbench.service import Workbench

    wb = Workbench(_settings())
    if not wb.settings.queue_url:
        raise UsageError("no job queue: set WORKBENCH_QUEUE_URL to the queue the jobs were sent to")
    for j in args.jobs:
        wb.job(j)  # unknown ids: one line, exit 2
    infos = wb.wait(args.jobs, args.timeout)
    _print_jobs(infos, args.json)
    failed = [i for i in infos if i.status == "failed"]
    pending = [i for i in infos if i.status not in ("finished", "failed")]
    if failed:
        print(f"workbench: {len(failed)} job(s) failed: {failed[0].job_id}: {failed[0].error}", file=sys.stderr)
    if pending:
        print(f"workbench: {len(pending)} job(s) not done after {args.timeout:g} s", file=sys.stderr)
    return 1 if failed or pending else 0


def _cmd_worker(args: argparse.Namespace) -> int:
    """Run jobs from the queue in this process (until the queue is empty with --burst)."""
    settings = _settings()
    if not settings.queue_url:
        raise UsageError("no job queue: set WORKBENCH_QUEUE_URL to a Redis URL (e.g. redis://127.0.0.1:6379/0)")
    from workbench.jobs.rq_queue import run_worker
    from workbench.service import Workbench

    run_worker(settings, Workbench(settings), burst=args.burst)
    return 0


def _cmd_table(args: argparse.Namespace) -> int:
    """`table DOCS… --questions FILE|contract`: build (or, with --table ID, grow) a review table and
    run its new and stale cells, in this process (then print every cell) or on the workers with
    --queue (then print the table id). `table show ID`, `table export ID --format xlsx|csv|json --out
    PATH`, `table list`; a reviewer's word on a cell, appended as a review event with who and why:
    `table correct ID DOC QUESTION --answer TEXT --reason WHY` (--reset withdraws it), `table review
    ID DOC QUESTION --label supported|unsupported` (on the evidence the short answer rests on); `table
    relate ID DOC AMENDMENT.pdf…`: amendments or side letters that change a row's document."""
    from workbench.service import Workbench

    words = list(args.args)
    action = words[0] if words[0] in TABLE_ACTIONS and not Path(words[0]).exists() else "build"
    wb = Workbench(_settings())
    if action == "list":
        rows = [{"table_id": t.table_id, "name": t.name, "documents": len(t.rows), "questions": len(t.columns),
                 "created_at": t.created_at.isoformat()} for t in wb.tables()]
        if args.json:
            emit(rows)
        for r in [] if args.json else rows:
            print(f"{r['table_id']}  {r['documents']} documents x {r['questions']} questions  {r['name']}")
        return 0
    if action in ("correct", "review"):
        return _table_decide(wb, action, words[1:], args)
    if action == "relate":
        return _table_relate(wb, words[1:], args)
    if action in ("show", "export"):
        if len(words) != 2:
            raise UsageError(f"table {action}: name one TABLE_ID (`workbench table list` lists them)")
        if action == "export":
            return _table_export(wb, words[1], args)
        _print_table(wb.table_view(words[1]), args.json)
        return 0
    if not args.questions:
        raise UsageError("table: --questions FILE is required (one question a line, \"Label: question\"), or "
                         "--questions contract for the built-in contract checklist")
    from workbench.table.checklist import read_checklist

    columns = read_checklist(args.questions)
    paths = [read_pdf_arg(f) for f in words]
    doc_ids = [_stored_id(wb, p) or wb.ingest(p, password=_pdf_password(args), source_type=args.source_type).id
               for p in paths]
    if args.queue and not wb.settings.queue_url:
        raise UsageError("--queue needs a job queue: set WORKBENCH_QUEUE_URL to a Redis URL "
                         "(e.g. redis://127.0.0.1:6379/0) and start `workbench worker`")
    if args.table:
        table = wb.add_to_table(args.table, document_ids=doc_ids, columns=columns)
    else:
        table = wb.create_table(doc_ids, columns, name=args.name or Path(args.questions).stem)
    return _run_table(wb, table, args)


def _run_table(wb, table, args: argparse.Namespace) -> int:
    """Run a table's new and stale cells: on the workers with --queue (print the table id), else here
    (then print every cell)."""
    records = wb.run_table(table.table_id, backend=args.backend)
    if args.queue:
        if args.json:
            emit([{"table_id": table.table_id, "cells_queued": len(records)}])
        else:
            print(f"table {table.table_id}: {len(records)} cell(s) queued; `workbench table show {table.table_id}`")
        return 0
    wb.wait([r.job_id for r in records if r.job_id], timeout=args.timeout)
    view = wb.table_view(table.table_id)
    _print_table(view, args.json)
    failed = [c for c in view.cells if c.status in ("failed", "queued", "running")]
    if failed:
        print(f"workbench: {len(failed)} cell(s) not answered: {failed[0].filename} / {failed[0].column_key}: "
              f"{failed[0].error or failed[0].status}", file=sys.stderr)
    return 1 if failed else 0


def _print_table(view, as_json: bool) -> None:
    from workbench.export.table import cli_row

    if as_json:
        emit(cli_row(c) for c in view.cells)
        return
    t = view.table
    counts = ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in sorted(view.counts.items()))
    print(f"table {t.table_id} ({t.name}): {len(t.rows)} documents x {len(t.columns)} questions; {counts}")
    for row in t.rows:
        print(row.filename)
        for c in (c for c in view.cells if c.row_key == row.key):
            short = " ".join((c.short_answer or c.status.replace("_", " ")).split())
            short = short if len(short) <= 90 else short[:89] + "…"
            norm = f" [{c.normalized}]" if c.normalized and c.normalized != short else ""
            cites = ", ".join(f"{x.requirement_id} p. {x.page_label or x.page}" for x in c.citations[:2])
            flags = "".join(f" ({w})" for w in (c.status if c.status != "done" else "",
                                                 c.review if c.review != "unreviewed" else "") if w)
            print(f"  {c.column_key}: {short}{norm}{flags}" + (f"  — {cites}" if cites else ""))


def _table_cell_keys(wb, table_id: str, doc: str, question: str) -> tuple[str, str]:
    """The (row key, column key) a command line names: the document by file name or id, the
    question by its label (any case) or its words; unknown names list the table's."""
    t = wb.table(table_id)
    fold = " ".join(question.split()).casefold()
    row = next((r.key for r in t.rows if doc in (r.key, r.document_id)), None) \
        or next((r.key for r in t.rows if r.key.casefold() == doc.casefold()), None)
    col = next((c.key for c in t.columns if fold in (c.key.casefold(), " ".join(c.question.split()).casefold())), None)
    if row is None:
        raise UsageError(f"table {table_id} has no document {doc!r}: one of {', '.join(r.key for r in t.rows)}")
    if col is None:
        raise UsageError(f"table {table_id} has no question {question!r}: one of {', '.join(c.key for c in t.columns)}")
    return row, col


def _table_relate(wb, words: list[str], args: argparse.Namespace) -> int:
    """`table relate TABLE_ID DOC AMENDMENT…`: the amendments (PDFs, stored or not) change the row
    DOC's document; its cells read them too, their clauses first, and are answered again (here, or
    on the workers with --queue). No AMENDMENT unlinks the row's."""
    if len(words) < 2:
        raise UsageError("table relate: name TABLE_ID DOCUMENT [AMENDMENT.pdf …] (the row's file name, then the "
                         "amendments or side letters that change it; none unlinks them)")
    table_id, doc = words[0], words[1]
    rows = {r.key.lower(): r.key for r in wb.table(table_id).rows}
    if doc.lower() not in rows:
        raise UsageError(f"table {table_id} has no document {doc!r}: one of {', '.join(rows.values())}")
    ids = [_stored_id(wb, p) or wb.ingest(p, password=_pdf_password(args), source_type=args.source_type).id
           for p in (read_pdf_arg(f) for f in words[2:])]
    table = wb.relate_documents(table_id, rows[doc.lower()], ids)
    [row] = [r for r in table.rows if r.key == rows[doc.lower()]]
    if not args.json:
        names = [wb.document(i).filename for i in row.related]
        print(f"{row.key}: " + (f"amended by {', '.join(names)}" if names else "no related documents"))
    return _run_table(wb, table, args)  # the row's cells went stale: answered again


def _table_decide(wb, action: str, words: list[str], args: argparse.Namespace) -> int:
    """`table correct|review TABLE_ID DOC QUESTION`: a reviewer's correction or label on one cell."""
    if len(words) != 3:
        raise UsageError(f"table {action}: name TABLE_ID DOCUMENT QUESTION (the document's file name, the "
                         "question's label; quote names with spaces)")
    row, col = _table_cell_keys(wb, *words)
    if action == "correct":
        if (args.answer is None) == (not args.reset):
            raise UsageError("table correct: give --answer TEXT (the cell's answer as you state it), or --reset "
                             "to withdraw the correction in force")
        if not (args.note or "").strip():
            raise UsageError("table correct: give --reason WHY (kept with the correction, as every decision is)")
        ev = wb.correct_cell(words[0], row, col, None if args.reset else args.answer, args.reviewer, args.note,
                             identity=_signed_in(wb, args))
        what = "correction withdrawn" if args.reset else f"corrected to {ev.value!r}"
    else:
        if not args.label:
            raise UsageError("table review: give --label supported (accept) or unsupported (reject)")
        ev = wb.review_cell(words[0], row, col, args.label, args.reviewer, args.note or "",
                           identity=_signed_in(wb, args))
        what = f"{ev.requirement_id} labelled {ev.label}"
    if args.json:
        emit([{**_event_row(ev), "table_id": words[0], "document": row, "column": col, "value": ev.value}])
    else:
        print(f"{row} / {col}: {what} by {ev.reviewer}; event {ev.id} stored")
    return 0


def _table_export(wb, table_id: str, args: argparse.Namespace) -> int:
    import os

    if not args.format or not args.out:
        raise UsageError("table export: give --format xlsx|csv|json and --out PATH")
    out = Path(args.out)
    if out.is_dir() or not out.parent.exists():
        raise UsageError(f"--out {args.out}: not a writable file path (does its folder exist?)")
    data, media, _ext = wb.export_table(table_id, args.format)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, out)
    if args.json:
        emit([{"out": str(out), "format": args.format, "media_type": media, "bytes": len(data)}])
    else:
        print(f"wrote {out} ({args.format}, {len(data)} bytes)")
    return 0


# --- parser ----------------------------------------------------------------------------------
TABLE_ACTIONS = ("show", "export", "list", "correct", "review", "relate")
SOURCE_TYPES = ["statute", "policy", "contract", "paper", "other"]
TYPE_CHOICES = ["auto", *SOURCE_TYPES]
AUTO_HELP = ("auto (default): read from the document's first pages (an agreement -> contract, an act -> statute; "
             "other when unclear), as the app does; a PDF stored before keeps its type")
EXPORT_FORMATS = ["json", "csv", "md", "html", "bibtex", "csljson", "webannotation", "pdf", "jsonl"]


def _run_type(args) -> str | None:
    """The --source-type a run is asked with: None for auto (each document's own type)."""
    t = getattr(args, "source_type", "auto")
    return None if t == "auto" else t


QUEUE_AS_HELP = ("with --queue and sign-in on: queue the job as this account (its password from WORKBENCH_PASSWORD, "
                 "else the first line of stdin); the job records who asked")
AS_HELP = ("act as this admin (sign-in on): the password from WORKBENCH_PASSWORD, else the first line of "
           "stdin")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="workbench", description="Auditable answers over PDFs: every sentence cites a verbatim, located quote.",
                epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"workbench {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("ingest", help="open PDFs, report pages, text layer and warnings")
    s.add_argument("files", nargs="+", metavar="FILE")
    _pdf_password_options(s)
    s.add_argument("--source-type", choices=TYPE_CHOICES, default="auto", help=AUTO_HELP)
    s.add_argument("--queue", action="store_true", help="queue it for `workbench worker` (WORKBENCH_QUEUE_URL) and print the job id")
    s.add_argument("--as", dest="as_", metavar="NAME", help=QUEUE_AS_HELP)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_ingest)

    s = sub.add_parser("locate", help="find quotes in a PDF: page, offsets, SHA-256, boxes (and the closest "
                       "passage, flagged, for a quote not found verbatim)")
    s.add_argument("file", metavar="FILE")
    s.add_argument("--quotes", required=True, metavar="QUOTES_FILE", help="one quote per line")
    _pdf_password_options(s)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_locate)

    s = sub.add_parser("ask", help="answer questions with verified, cited evidence")
    s.add_argument("files", nargs="+", metavar="FILE")
    q = s.add_mutually_exclusive_group(required=True)
    q.add_argument("--question")
    q.add_argument("--questions", metavar="FILE", help="one question per line; writes a JSON list")
    s.add_argument("--backend", default=None, help="rules (default, offline) or openai")
    s.add_argument("--out", metavar="OUT.json")
    s.add_argument("--source-type", choices=TYPE_CHOICES, default="auto",
                   help=AUTO_HELP + "; a type named here also sets the evidence IDs' prefix")
    _pdf_password_options(s)
    s.add_argument("--queue", action="store_true", help="queue it for `workbench worker` (WORKBENCH_QUEUE_URL) and print the job id")
    s.add_argument("--as", dest="as_", metavar="NAME", help=QUEUE_AS_HELP)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_ask)

    s = sub.add_parser("verify", help="check claims against a PDF, sentence by sentence")
    s.add_argument("file", metavar="FILE")
    s.add_argument("--claim", action="append", metavar="TEXT", help="a claim to check (repeatable)")
    s.add_argument("--claims", metavar="CLAIMS_FILE", help="one claim per line")
    s.add_argument("--backend", default=None)
    _pdf_password_options(s)
    s.add_argument("--queue", action="store_true", help="queue it for `workbench worker` (WORKBENCH_QUEUE_URL) and print the job id")
    s.add_argument("--as", dest="as_", metavar="NAME", help=QUEUE_AS_HELP)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_verify)

    s = sub.add_parser("runs", help="list stored runs, newest first")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_runs)

    s = sub.add_parser("show", help="a stored run's audit trail with verdicts and human labels")
    s.add_argument("run", metavar="RUN")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_show)

    s = sub.add_parser("review", help="record a human label on an evidence item (append-only)")
    s.add_argument("run", metavar="RUN")
    s.add_argument("evidence_id", metavar="EVIDENCE_ID")
    s.add_argument("--label", required=True, choices=["supported", "unsupported", "contradicted", "reset"],
                   help="contradicted: the documents say otherwise (not supported)")
    s.add_argument("--reviewer", required=True)
    s.add_argument("--adjudicate", action="store_true",
                   help="record the label as the decision that settles reviewers' disagreement")
    s.add_argument("--password-stdin", action="store_true", help="sign-in on: the reviewer's password on stdin")
    s.add_argument("--note", default="")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_review)

    s = sub.add_parser("check-draft", help="check a drafted answer sentence by sentence and store it (seed 004)")
    s.add_argument("draft", metavar="DRAFT", help="a plain-text or Markdown file")
    s.add_argument("documents", metavar="PDF_OR_ID", nargs="+", help="PDF files (ingested) or document ids")
    s.add_argument("--title", help="a name for the checked draft (default: the file name)")
    s.add_argument("--plain", action="store_true", help="read the draft as plain text, not Markdown")
    s.add_argument("--out", help="write the checked draft there (md, html or json, by --format or the suffix)")
    s.add_argument("--format", choices=["md", "html", "json"])
    _pdf_password_options(s)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_check_draft)

    s = sub.add_parser("add-evidence", help="add evidence the run missed (human-Supported, append-only)")
    s.add_argument("run", metavar="RUN")
    s.add_argument("document_id", metavar="DOCUMENT_ID")
    w = s.add_mutually_exclusive_group(required=True)
    w.add_argument("--quote", help="the exact text, as it appears in the document")
    w.add_argument("--start", type=int, help="start offset into the document's text (with --end)")
    s.add_argument("--end", type=int, help="end offset (exclusive)")
    s.add_argument("--reviewer", required=True)
    s.add_argument("--password-stdin", action="store_true",
                   help="sign-in on: the reviewer's password on stdin (else $WORKBENCH_PASSWORD)")
    s.add_argument("--note", default="", help="why it is evidence (recorded with the event)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_add_evidence)

    s = sub.add_parser("calibrate", help="refit the verifier on reviewers' labels (cross-validated), or revert")
    s.add_argument("--revert", action="store_true", help="put back the calibration before the one in force")
    s.add_argument("--claims", action="store_true",
                   help="the claim checker (verify, Check a draft) on checked drafts' sentence labels, "
                        "instead of the question verifier on reviewed runs")
    s.add_argument("--as", dest="as_", metavar="ADMIN", help=AS_HELP)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_calibrate)

    s = sub.add_parser("history", help="review events in time order")
    s.add_argument("run", metavar="RUN")
    s.add_argument("evidence_id", nargs="?", metavar="EVIDENCE_ID")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_history)

    s = sub.add_parser("metrics", help="verifier vs human agreement, review progress")
    s.add_argument("run", nargs="?", metavar="RUN")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_metrics)

    s = sub.add_parser("export", help="export runs: citations, audit trail, annotated PDF, relabels")
    s.add_argument("runs", nargs="*", metavar="RUN")
    s.add_argument("--all", action="store_true", help="every stored run (the whole workspace)")
    s.add_argument("--format", required=True, choices=EXPORT_FORMATS)
    s.add_argument("--out", required=True, metavar="PATH")
    s.add_argument("--force", action="store_true", help="export despite the safety gate (needs --reason)")
    s.add_argument("--reason", help="why the gate may be skipped; recorded inside the export")
    s.add_argument("--by", help="who forces the export (default: the login name); with sign-in, --as")
    s.add_argument("--as", dest="as_", metavar="NAME", help="sign-in on: force as this adjudicator or admin "
                   "(password from WORKBENCH_PASSWORD or the first line of stdin)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_export)

    s = sub.add_parser("user", help="accounts for sign-in (an admin's): add, list, passwd, role, disable, enable",
                       description=_cmd_user.__doc__)
    s.add_argument("action", choices=["add", "list", "passwd", "role", "disable", "enable"])
    s.add_argument("name", nargs="?", metavar="NAME")
    s.add_argument("--role", choices=["reviewer", "adjudicator", "admin"], default="reviewer")
    s.add_argument("--password-stdin", action="store_true", help="add: read the new password from stdin")
    s.add_argument("--oidc", action="store_true", help="add: an identity-provider user by e-mail (role only)")
    s.add_argument("--as", dest="as_", metavar="ADMIN", help=AS_HELP)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_user)

    s = sub.add_parser("security-log", help="failed sign-ins, refusals, account changes (an admin's)")
    s.add_argument("--as", dest="as_", metavar="ADMIN", help=AS_HELP)
    s.add_argument("--limit", type=int, default=500, help="the newest N events (default 500)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_security_log)

    s = sub.add_parser("table", help="a review table: documents x checklist questions, every cell cited",
                       description=_cmd_table.__doc__)
    s.add_argument("args", nargs="+", metavar="DOCS… | show ID | export ID | list | correct ID DOC QUESTION | "
                   "review ID DOC QUESTION | relate ID DOC AMENDMENT…")
    s.add_argument("--questions", metavar="FILE", help="one question a line (\"Label: question\"); "
                   "contract: the built-in contract checklist")
    s.add_argument("--table", metavar="TABLE_ID", help="add the documents and questions to this table: only new "
                   "and stale cells run")
    s.add_argument("--name", help="the table's name (default: the checklist's file name)")
    s.add_argument("--backend", default=None, help="rules (default, offline) or openai")
    s.add_argument("--source-type", choices=TYPE_CHOICES, default="auto", help=AUTO_HELP)
    s.add_argument("--timeout", type=float, default=None, metavar="S", help="stop waiting for cells after S seconds")
    s.add_argument("--format", choices=["xlsx", "csv", "json"], help="export: the file format")
    s.add_argument("--out", metavar="PATH", help="export: the file to write")
    s.add_argument("--answer", metavar="TEXT", help="correct: the cell's answer as the reviewer states it")
    s.add_argument("--reset", action="store_true", help="correct: withdraw the correction in force")
    s.add_argument("--label", choices=["supported", "unsupported"],
                   help="review: accept (supported) or reject (unsupported) the evidence the cell rests on")
    s.add_argument("--reason", "--note", dest="note", metavar="WHY", help="correct, review: why (recorded with it)")
    s.add_argument("--reviewer", help="correct, review: who decides (with sign-in on: the account, its password "
                   f"from --password-stdin or ${ACCOUNT_PASSWORD_ENV})")
    _pdf_password_options(s)
    s.add_argument("--queue", action="store_true", help="run the cells on `workbench worker` processes "
                   "(WORKBENCH_QUEUE_URL) and print the table id")
    s.add_argument("--json", action="store_true", help="one object per cell")
    s.set_defaults(func=_cmd_table)

    s = sub.add_parser("jobs", help="queued, running and finished jobs with their progress")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_jobs)

    s = sub.add_parser("wait", help="wait until jobs are finished or failed")
    s.add_argument("jobs", nargs="+", metavar="JOB")
    s.add_argument("--timeout", type=float, default=None, metavar="S")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_wait)

    s = sub.add_parser("worker", help="run queued jobs (WORKBENCH_QUEUE_URL) in this process")
    s.add_argument("--burst", action="store_true", help="stop once the queue is empty")
    s.set_defaults(func=_cmd_worker)
    return p


def worded(exc: WorkbenchError) -> str:
    """One line for the terminal: the core's message plus the remedy in this front end's terms."""
    msg = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, ExportBlockedError):
        return (f"{msg}: pass --force --reason TEXT" if exc.needs_reason else
                f"{msg}. Review the evidence, or export anyway with --force --reason TEXT "
                "(the reason is recorded in the export)")
    if isinstance(exc, ReviewerRequiredError):
        return f"{msg}: pass --reviewer NAME"
    if isinstance(exc, PasswordRequiredError):
        return f"{msg}: pass --password-stdin and the password on stdin, or set {PDF_PASSWORD_ENV}"
    if isinstance(exc, SignInError) and msg.endswith("sign in first"):
        return f"{msg} (--as NAME, the password from WORKBENCH_PASSWORD or the first line of stdin)"
    return msg


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args) or 0)
    except WorkbenchError as exc:
        print(f"workbench: {worded(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("workbench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
