"""Issue 37: a PDF password never goes on a command line, where every user of the machine reads
it in the process list (`ps`). The commands that open PDFs (ingest, ask, verify, locate,
check-draft) take it from stdin (--password-stdin; a prompt without echo on a terminal) or from
WORKBENCH_PDF_PASSWORD, and no message repeats it."""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
from pathlib import Path

import pytest

from workbench.cli import build_parser, main
from workbench.errors import WorkbenchError
from workbench.service import Workbench

PW = "Pdf-Passw0rd-7"
TEXT = "The Supplier shall deliver the Goods to the Buyer within ten business days of each purchase order."
PDF_COMMANDS = ["ingest", "ask", "verify", "locate", "check-draft"]


@pytest.fixture
def encrypted(make_pdf) -> Path:
    import pymupdf

    plain = make_pdf([TEXT], name="plain.pdf")
    doc = pymupdf.open(plain)
    path = plain.with_name("locked.pdf")
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=PW, owner_pw=PW + "-owner")
    doc.close()
    return path


def subcommand(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return subs.choices[name]


def stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


@pytest.mark.parametrize("command", PDF_COMMANDS)
def test_the_only_password_option_on_offer_reads_stdin(command: str):
    parser = subcommand(command)
    shown = parser.format_help()
    assert "--password-stdin" in shown
    assert re.search(r"--password(?![-\w])", shown) is None, shown  # no `--password VALUE` in help or usage
    offered = {o for a in parser._actions if a.help != argparse.SUPPRESS for o in a.option_strings}
    assert "--password" not in offered


def test_an_encrypted_pdf_opens_with_its_password_on_stdin(encrypted, data_dir, capsys, monkeypatch):
    stdin(monkeypatch, PW + "\n")
    assert main(["ingest", str(encrypted), "--password-stdin", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["encrypted"] is True and err == ""


def test_an_encrypted_pdf_opens_with_its_password_in_the_environment(encrypted, data_dir, capsys, monkeypatch):
    monkeypatch.setenv("WORKBENCH_PDF_PASSWORD", PW)
    assert main(["locate", str(encrypted), "--quotes", str(_quotes(encrypted)), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["found"] is True and err == ""


def test_locate_reads_the_password_from_stdin(encrypted, data_dir, capsys, monkeypatch):
    stdin(monkeypatch, PW + "\n")
    assert main(["locate", str(encrypted), "--quotes", str(_quotes(encrypted)), "--password-stdin", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["found"] is True


def _quotes(pdf: Path) -> Path:
    q = pdf.with_name("quotes.txt")
    q.write_text("deliver the Goods to the Buyer within ten business days\n", encoding="utf-8")
    return q


@pytest.mark.parametrize("argv", [["ask", "{pdf}", "--question", "When are the Goods delivered?"],
                                  ["verify", "{pdf}", "--claim", "The Goods arrive within ten days."],
                                  ["check-draft", "{draft}", "{pdf}"]])
def test_every_command_that_opens_a_pdf_hands_it_the_password_from_stdin(argv, encrypted, data_dir, capsys,
                                                                          monkeypatch):
    seen: list[str | None] = []

    def ingest(self, source, filename=None, *, password=None, **_):
        seen.append(password)
        raise WorkbenchError("stopped once the password was handed over")

    monkeypatch.setattr(Workbench, "ingest", ingest)
    draft = encrypted.with_name("draft.md")
    draft.write_text("The Goods arrive within ten days.\n", encoding="utf-8")
    stdin(monkeypatch, PW + "\n")
    args = [a.format(pdf=encrypted, draft=draft) for a in argv]
    assert main([*args, "--password-stdin"]) == 2
    assert seen == [PW] and "stopped once" in capsys.readouterr().err


def test_a_wrong_or_missing_password_is_refused_without_repeating_it(encrypted, data_dir, capsys, monkeypatch):
    wrong = "Not-The-Pdf-Passw0rd"
    stdin(monkeypatch, wrong + "\n")
    assert main(["ingest", str(encrypted), "--password-stdin"]) == 2
    err = capsys.readouterr().err
    assert "password is wrong" in err and wrong not in err
    assert main(["ingest", str(encrypted)]) == 2
    err = capsys.readouterr().err
    assert "--password-stdin" in err and "WORKBENCH_PDF_PASSWORD" in err and not re.search(r"--password(?![-\w])", err)


def test_a_password_still_typed_on_the_command_line_is_warned_about(encrypted, data_dir, capsys):
    """Kept for old scripts (the shared CLI checker passes --password): it works, hidden from
    --help, and says on stderr that the password was visible to every user of the machine."""
    assert main(["ingest", str(encrypted), "--password", PW, "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["encrypted"] is True
    assert "process list" in err and "--password-stdin" in err and PW not in err
