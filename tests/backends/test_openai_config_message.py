"""The missing-endpoint message is read in the app as well as on the command line: it names the
way out in words (the rules backend), not only as a CLI flag."""

from __future__ import annotations

import pytest

from workbench.backends.openai import OpenAIBackend
from workbench.config import Settings
from workbench.errors import WorkbenchError


def test_no_key_and_no_base_url_names_both_settings_and_the_rules_backend(tmp_path):
    with pytest.raises(WorkbenchError) as e:
        OpenAIBackend(Settings(data_dir=tmp_path, openai_api_key=None, openai_base_url=None))
    msg = str(e.value)
    assert "OPENAI_API_KEY" in msg and "OPENAI_BASE_URL" in msg
    assert "choose the offline rules backend" in msg and "--backend rules" in msg
