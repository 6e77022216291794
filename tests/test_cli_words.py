"""CLI conveniences: --version, examples in --help, verify --claim TEXT (repeatable), --json one
object per line."""

from __future__ import annotations

import json

import pytest

from workbench import __version__
from workbench.cli import main

PAGE = ("Audit and accountability. The organization shall review and analyze system audit records weekly "
        "for indications of inappropriate or unusual activity. Audit logs are retained for one year.")


def test_version_and_examples_in_help(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"workbench {__version__}"
    with pytest.raises(SystemExit):
        main(["--help"])
    helptext = capsys.readouterr().out
    assert "examples:" in helptext and "workbench ask policy.pdf --question" in helptext
    assert "--claim" in helptext


def test_verify_claim_is_repeatable_and_json_is_one_object_per_line(data_dir, make_pdf, capsys):
    pdf = make_pdf([PAGE])
    claims = ["Audit records are reviewed weekly.", "Audit logs are retained for one year."]
    assert main(["verify", str(pdf), "--claim", claims[0], "--claim", claims[1], "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(x)["claim"] for x in lines] == claims
    assert main(["verify", str(pdf)]) == 2
    assert "--claim TEXT" in capsys.readouterr().err
