"""Usage errors read as one plain line: the program's name once, then what is wrong."""

from __future__ import annotations

from workbench.cli import main


def test_missing_command_names_the_program_once(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err == "workbench: the following arguments are required: command (see --help)\n"


def test_bad_option_of_a_subcommand_names_the_subcommand_once(capsys, data_dir):
    assert main(["review", "RUN", "REQ-S001", "--label", "maybe", "--reviewer", "x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("workbench: review: argument --label: invalid choice: 'maybe'")
    assert err.count("workbench") == 1 and err.count("\n") == 1
