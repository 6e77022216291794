"""The shared vocabulary: typed stage failures and usage, and runs stored before they were typed."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from workbench.models import Run, StageFailure, StageUsage

# A run as the store held it when failures and usage were plain dicts.
STORED_BEFORE = json.dumps({
    "run_id": "r1", "question": "q", "document_ids": ["d"], "backend": "openai",
    "usage": {"extract": {"prompt_tokens": 11, "completion_tokens": 7, "latency_s": 0.5, "calls": 1,
                          "raw_failures": []}},
    "failures": [{"stage": "extract", "error": "BackendError", "message": "invalid JSON", "raw": "{not json"}],
})


def test_a_run_stored_with_dict_failures_and_usage_loads_typed_and_writes_the_same_audit_json():
    run = Run.model_validate_json(STORED_BEFORE)
    assert run.failures == [StageFailure(stage="extract", error="BackendError", message="invalid JSON",
                                         raw="{not json")]
    assert run.usage["extract"] == StageUsage(prompt_tokens=11, completion_tokens=7, latency_s=0.5, calls=1)
    trail = run.audit_trail()["evidence_audit_trail"]
    stored = json.loads(STORED_BEFORE)
    assert trail["failures"] == stored["failures"]
    was = stored["usage"]["extract"]
    assert {k: trail["usage"]["extract"][k] for k in was} == was  # fields added since take their defaults
    assert Run.model_validate_json(run.model_dump_json()) == run


def test_a_failure_names_a_pipeline_stage_and_says_what_happened():
    assert StageFailure(stage="verify", message="rate limited").raw is None
    with pytest.raises(ValidationError):
        StageFailure(stage="lunch", message="x")
    with pytest.raises(ValidationError):
        StageFailure(stage="verify")
