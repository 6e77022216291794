"""The OpenAI-compatible backend: any endpoint that speaks the chat-completions API (OpenAI,
Ollama, vLLM, llama.cpp, LM Studio) through the official `openai` client.

The LLM proposes, the workbench checks:
- extract returns Candidates WITHOUT offsets, so the pipeline must find every quote verbatim
  in the PDF (otherwise `quote_not_found`);
- verify runs the offline engine's judgment (`backends.engine.judge_quote`: the trained
  relevance model and the gates, as `ask` with the rules backend and `verify` use) as a hard
  gate after the LLM's verdict, so the LLM can only reject more, never verify what it rejects;
- compose drops cited IDs that are not verified evidence (and sentences left citing nothing);
- support gates the LLM's sentence verdicts with the engine's `sentence_support` the same way.

Replies are JSON validated against pydantic models; a malformed reply (invalid JSON, wrong
schema, empty, truncated) gets one retry, then the stage raises `BackendError(raw=...)`. The
retry never carries the failed reply back: it asks for less (fewer, shorter items), so it is
never longer than the first call.

Small models (a 135M model in a 2048-token context is tested for real): the schema sent with each
call is bounded to the stage's completion budget (`bounded_schema`: maxItems, maxLength, enums),
so a server that compiles it into a grammar ends the reply within the budget; prompts are sized to
the model's context (`context_tokens`: what the server reports, else the setting, else what the
server says when a prompt is too long, after which the request is split or cut, never dropped).
HTTP retries (429 honouring Retry-After, 5xx, timeouts) are the client's own bounded,
exponential back-off (`settings.llm_max_retries`); 401/403/404 fail at once with advice.
Every call, retries included, has ONE overall deadline (`settings.llm_timeout`).

Structured output is negotiated per endpoint (base URL + model), strongest form first, since
each server spells "constrain the reply to this JSON schema" its own way (FORMS below); a
server's refusal is recognised by what its error body says about the parameter, whatever the
status code (llama-cpp-python answers 500). Replies are validated with pydantic whatever the
form; the form used is in the audit trail (usage[stage].structured_output)."""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, get_args

import httpx
import openai
from pydantic import BaseModel, Field, ValidationError, field_validator

from workbench.backends import engine, prompts
from workbench.backends.base import ExtractContext
from workbench.config import Settings
from workbench.errors import BackendError, ConfigError
from workbench.models import (
    Candidate,
    Chunk,
    Draft,
    Evidence,
    RejectionReason,
    RequirementReference,
    SentenceSupport,
    StageUsage,
    Verification,
)
from workbench.redact import redact, redact_url
from workbench.text import mentioned_ids, remove_ids, split_sentences, strip_citations

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

PLACEHOLDER_KEY = "sk-local-no-key"  # local servers ignore the key but the client wants one
REJECTION_REASONS: frozenset[str] = frozenset(get_args(RejectionReason))
VERIFIER = "openai+rules"

# --- structured output forms, strongest first ------------------------------------------------
# (name, what a refusal names): a refusal is an HTTP error whose body mentions one of the words.
FORMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("json_schema", ("response_format", "json_schema")),  # OpenAI, vLLM, llama-server, Ollama >= 0.5
    ("json_object+schema", ("response_format", "json_object", "schema")),  # llama-cpp-python server
    ("json_schema_field", ("json_schema", "grammar")),  # llama.cpp native server, top-level field
    ("structured_outputs", ("structured_outputs", "structured output")),  # vLLM >= 0.10
    ("guided_json", ("guided_json", "guided_decoding", "guided decoding")),  # older vLLM
    ("format", ("format",)),  # Ollama's native `format` (a schema)
    ("json_object", ("response_format", "json_object")),  # any JSON, shape checked by pydantic
    ("prompt", ()),  # the schema in the prompt only; pydantic validation
)
FORM_NAMES = [f for f, _ in FORMS]
# What each endpoint (base URL, model) accepted, shared by every backend in this process.
_ENDPOINT_FORM: dict[tuple[str, str], int] = {}
_ENDPOINT_CTX: dict[tuple[str, str], int | None] = {}
_ENDPOINT_LOCK = threading.Lock()
# Completion budget per stage (tokens): bounds how long a small model can ramble.
MAX_TOKENS = {"extract": 1024, "verify": 256, "compose": 768, "support": 512, "claims": 256}
CHARS_PER_TOKEN = 3.0  # conservative for English (real tokenizers give ~4)
MIN_REPLY_TOKENS = 96  # a call whose prompt leaves less room than this in the context is not sent
# The longest string a reply schema allows: llama-cpp-python 0.3.36 writes maxLength n as n nested
# optional groups, and its grammar parser gives up past about 1,000 of them (measured: 1,000 parses,
# 1,024 fails, and the failure takes the server process down with it).
MAX_STRING_CHARS = 800
# What a server says when a prompt does not fit: OpenAI, vLLM and llama-cpp-python ("This model's maximum
# context length is 2048 tokens"), llama-cpp-python's own ValueError, llama.cpp's server (n_ctx in the body).
_CTX_SAID = (re.compile(r"maximum context length is (\d+)"), re.compile(r"context window of (\d+)"),
             re.compile(r'"n_ctx"\s*:\s*(\d+)'), re.compile(r"context (?:size|length|window) (?:of |is )?\(?(\d+)"))
_OVERFLOW_WORDS = ("context length", "context window", "context size", "context_length_exceeded",
                   "exceed_context_size", "too many tokens", "prompt is too long")


# --- what the model must reply (validated) ------------------------------------------------
def _lower(v: Any) -> Any:
    return v.strip().lower() if isinstance(v, str) else v


class ExtractedQuote(BaseModel):
    chunk_id: str
    exact_quote: str = Field(min_length=1)
    section_heading: str | None = None  # accepted, not asked for: the chunk's own heading is used
    extraction_confidence: str = "medium"

    _norm = field_validator("extraction_confidence", mode="before")(_lower)


class ExtractReply(BaseModel):
    requirements: list[ExtractedQuote]


class VerifyReply(BaseModel):
    verified: bool
    rejection_reason: str | None = None
    verification_rationale: str = ""
    score: float | None = Field(default=None, ge=0.0, le=1.0)

    _norm = field_validator("rejection_reason", mode="before")(_lower)


class ComposeReply(BaseModel):
    final_answer: str = Field(min_length=1)
    # accepted (to report IDs that are not verified evidence), not asked for: the references are
    # derived from the answer's inline citations
    requirement_references: list[RequirementReference] = Field(default_factory=list)
    unused_requirements: list[str] = Field(default_factory=list)


class SentenceVerdict(BaseModel):
    index: int
    supported: bool
    reason: str = ""


class SupportReply(BaseModel):
    sentences: list[SentenceVerdict]


class OpenAIDraft(Draft):
    """A Draft that also reports what the backend removed before returning it."""

    removed_citations: list[str] = Field(default_factory=list)  # IDs cited that are not verified evidence
    removed_sentences: list[str] = Field(default_factory=list)  # sentences left citing nothing valid


# --- helpers -----------------------------------------------------------------------------
def compact_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The reply model's JSON schema without titles and with its `$defs` inlined: shorter for a
    small model's context and for the grammar a server compiles from it, and accepted by servers
    whose schema converters do not follow `$ref` (Ollama answers "invalid JSON schema in format")."""
    full = model.model_json_schema()
    defs = full.get("$defs", {})

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
                return strip(defs[ref[8:]])  # the reply models are not recursive
            return {k: strip(v) for k, v in node.items()
                    if k != "$defs" and not (k == "title" and isinstance(v, str))}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node
    return strip(full)


def bounded_schema(model: type[BaseModel], bounds: dict[str, dict[str, Any]], drop: tuple[str, ...] = ()
                   ) -> dict[str, Any]:
    """The reply schema as sent to the server: `compact_schema(model)` with `bounds` merged into
    the property of that name wherever it occurs (maxItems, maxLength, enum), the properties in
    `drop` left out, and no extra properties. A server that constrains decoding to the schema
    (llama.cpp's grammars, vLLM, Ollama) then cannot ramble past the reply budget: the reply ends
    when the grammar does. The reply is still validated with the (lenient) pydantic model."""
    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(v) for v in node]
        if not isinstance(node, dict):
            return node
        out = {k: walk(v) for k, v in node.items()}
        props = out.get("properties")
        if isinstance(props, dict):
            for name in drop:
                props.pop(name, None)
            for name, extra in bounds.items():
                if name in props:
                    base = {k: v for k, v in props[name].items() if k not in ("anyOf", "default")} \
                        if "enum" in extra else props[name]
                    props[name] = {**base, **extra}
            if "required" in out:
                out["required"] = [r for r in out["required"] if r in props]
            out["additionalProperties"] = False
        return out
    return walk(compact_schema(model))


def estimate_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN) + 1


def strip_code_fence(text: str) -> str:
    """Local models often wrap JSON in ```json fences, think aloud first, or add a sentence around it."""
    t = re.sub(r"<think>.*?</think>", "", text, flags=re.S).strip()  # reasoning models' preamble
    m = re.match(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?```\s*$", t, re.S)
    if m:
        return m.group(1).strip()
    if not t.startswith(("{", "[")) and "{" in t and "}" in t:
        return t[t.index("{"): t.rindex("}") + 1]
    return t


SALVAGEABLE = ("requirements",)  # list replies whose complete items stand alone (extract's quotes)


def salvage_list(model: type[M], raw: str) -> M | None:
    """The complete items of a reply cut off mid-list (`{"requirements": [{...}, {...}, {"chunk_`),
    for a reply model whose one required field is a list of independent items; None when the
    model is not such a list, or not one item is complete and valid."""
    fields = [n for n, f in model.model_fields.items() if f.is_required()]
    if len(fields) != 1 or fields[0] not in SALVAGEABLE:
        return None
    m = re.search('"' + re.escape(fields[0]) + r'"\s*:\s*\[', strip_code_fence(raw))
    if not m:
        return None
    text, pos, items = strip_code_fence(raw), m.end(), []
    decoder = json.JSONDecoder(strict=False)  # raw newlines in strings, as grammars allow
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        try:
            item, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            break
        items.append(item)
    try:
        return model.model_validate({fields[0]: items}) if items else None
    except ValidationError:
        return None


def drop_invalid_citations(answer: str, valid: set[str]) -> tuple[str, list[str], list[str]]:
    """Remove cited IDs not in `valid`; drop sentences left with no valid citation at all.
    Returns (clean answer, removed IDs, removed sentences)."""
    removed_ids: list[str] = []
    kept: list[str] = []
    removed_sentences: list[str] = []
    for sentence in split_sentences(answer):
        bad = [i for i in mentioned_ids(sentence) if i not in valid]
        removed_ids.extend(i for i in bad if i not in removed_ids)
        s = remove_ids(sentence, set(bad))
        if mentioned_ids(s):
            kept.append(s)
        elif mentioned_ids(sentence):  # it cited only IDs that are not verified evidence
            removed_sentences.append(sentence)
        else:
            kept.append(s)  # uncited: quality review reports it
    return " ".join(kept), removed_ids, removed_sentences


# --- the backend ---------------------------------------------------------------------------
class OpenAIBackend:
    """Backend over an OpenAI-compatible endpoint; see the module docstring for the rules."""

    name = "openai"

    def __init__(self, settings: Settings, *, embed: Callable[[list[str]], Any] | None = None):
        if not settings.openai_api_key and not settings.openai_base_url:
            raise ConfigError(
                "The openai backend needs OPENAI_API_KEY (for api.openai.com) or OPENAI_BASE_URL (for a "
                "local server, e.g. http://localhost:11434/v1 for Ollama): set one, or choose the offline rules "
                "backend (--backend rules on the command line)."
            )
        if settings.llm_max_concurrency < 1 or settings.llm_timeout <= 0 or settings.llm_max_retries < 0:
            raise ConfigError(
                "WORKBENCH_LLM_MAX_CONCURRENCY must be >= 1, WORKBENCH_LLM_TIMEOUT > 0 and "
                "WORKBENCH_LLM_MAX_RETRIES >= 0: fix them in the environment or workbench.toml."
            )
        self.settings = settings
        self.model = settings.model
        self.embed = embed  # optional embedder for the rules gate's relevance check
        self.base_url = settings.openai_base_url or "https://api.openai.com/v1"
        self.shown_url = redact_url(self.base_url)  # for messages and logs: no credentials in them
        self.client = openai.OpenAI(
            api_key=settings.openai_api_key or PLACEHOLDER_KEY,
            base_url=settings.openai_base_url or None,
            timeout=settings.llm_timeout,
            max_retries=settings.llm_max_retries,
        )
        self._usage: dict[str, StageUsage] = {}
        self._lock = threading.Lock()
        self._endpoint = (self.base_url.rstrip("/"), self.model)
        # Some models (OpenAI's reasoning models) refuse a temperature or max_tokens: then it is left out.
        self._send_temperature = True
        self._send_max_tokens = True

    # --- Backend interface ----------------------------------------------------------------
    def extract(self, question: str | None, chunks: list[Chunk], context: ExtractContext | None = None) -> list[Candidate]:
        """Quotes the LLM proposes, as Candidates without offsets: the pipeline anchors them.
        A group of chunks too long for the model's context (the estimate, or the server says so)
        is split in two, and a single chunk too long is cut to the part that fits."""
        if not chunks:
            return []
        try:
            reply = self._ask("extract", lambda scale: self._extract_request(question, chunks, scale), ExtractReply,
                              self.settings.temperature_draft)
        except _ContextOverflow as exc:
            if len(chunks) > 1:
                half = len(chunks) // 2
                return self.extract(question, chunks[:half], context) + self.extract(question, chunks[half:], context)
            cut = self._cut_to_fit(question, chunks[0])
            if cut is None:
                raise BackendError(f"extract: {exc}", raw=exc.raw) from exc
            return self.extract(question, [cut], context)
        by_id = {c.chunk_id: c for c in chunks}
        out: list[Candidate] = []
        for q in reply.requirements:
            quote = " ".join(q.exact_quote.split())
            if not quote:
                continue
            # The chunk that holds the quote decides the document (models mix up chunk ids);
            # a quote no chunk holds keeps the named chunk, and the pipeline will not find it.
            named = by_id.get(q.chunk_id)
            chunk = (self._chunk_holding(quote, [named] if named else []) or self._chunk_holding(quote, chunks)
                     or named or chunks[0])
            out.append(Candidate(
                exact_quote=quote,
                chunk_id=chunk.chunk_id,
                document_id=chunk.document_id,
                section_heading=q.section_heading or chunk.section_heading,
                extraction_confidence=q.extraction_confidence if q.extraction_confidence in ("high", "medium", "low")
                else "medium",
            ))
        return out

    def _extract_schema(self, chunk_ids: list[str], scale: float = 1.0) -> dict[str, Any]:
        """The extract reply bounded to its completion budget: quotes at most `quote_max_words`
        words long (in characters, and short enough that one whole item fits the budget even at
        one character per token), as many items as the budget holds at CHARS_PER_TOKEN, chunk ids
        from the request only. `scale` < 1 asks for less (the retry after a reply that was cut)."""
        budget = self._max_tokens("extract")
        id_chars = max((len(i) for i in chunk_ids), default=8)
        item_overhead = id_chars + 80  # keys, quotes, commas, the confidence
        quote_chars = max(40, int(min(self.settings.quote_max_words * 8, budget - item_overhead - 16, MAX_STRING_CHARS)
                                  * scale))
        max_items = max(1, int(budget * CHARS_PER_TOKEN * scale / (quote_chars + item_overhead)))
        return bounded_schema(ExtractReply, {
            "requirements": {"maxItems": max_items},
            "chunk_id": {"enum": list(chunk_ids)},
            "exact_quote": {"maxLength": quote_chars},
            "extraction_confidence": {"enum": ["high", "medium", "low"]},
        }, drop=("section_heading",))

    def _extract_request(self, question: str | None, chunks: list[Chunk], scale: float
                         ) -> tuple[list[dict[str, str]], dict[str, Any]]:
        schema = self._extract_schema([c.chunk_id for c in chunks], scale)
        return prompts.extract_messages(question, chunks, schema), schema

    def _cut_to_fit(self, question: str | None, chunk: Chunk) -> Chunk | None:
        """The head of a chunk too long for one call, cut at a word boundary to what the context
        leaves after the prompt and the reply budget; None when it cannot get shorter."""
        overhead = estimate_tokens("".join(m["content"] for m in self._extract_request(question, [], 1.0)[0]))
        room = self.context_tokens() - self._max_tokens("extract") - overhead - 64
        limit = min(int(room * CHARS_PER_TOKEN), len(chunk.text) * 2 // 3)
        if limit < 200:
            return None
        text = chunk.text[:limit]
        text = text[: text.rfind(" ")] if " " in text[limit // 2:] else text
        return chunk.model_copy(update={"text": text, "end": chunk.start + len(text)})

    def verify(self, question: str, evidence: list[Evidence]) -> list[Verification]:
        """One LLM call per item, at most llm_max_concurrency in flight; each verdict then
        passes the rules gate. An item whose call fails is rejected `backend_error` (its raw
        reply is kept in usage()['verify'].raw_failures); if every call fails, the stage raises."""
        if not evidence:
            return []
        workers = min(self.settings.llm_max_concurrency, len(evidence))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="wb-verify") as pool:
            results = list(pool.map(lambda e: self._verify_one(question, e), evidence))
        errors = [err for _, err in results if err is not None]
        if errors and len(errors) == len(evidence):
            first = errors[0]
            raise BackendError(f"verify failed for all {len(evidence)} requirements: {first}", raw=first.raw)
        return [v for v, _ in results]

    def compose(self, question: str, verified: list[Evidence], feedback: list[str] | None = None) -> OpenAIDraft:
        """An answer citing only verified IDs; invalid citations are removed and reported."""
        valid = {e.requirement_id for e in verified}
        reqs = [{"requirement_id": e.requirement_id, "section_heading": e.section_heading,
                 "page": e.span.page if e.span else None, "exact_quote": e.exact_quote} for e in verified]

        def request(scale: float) -> tuple[list[dict[str, str]], dict[str, Any]]:
            # the answer at most 2 characters per token of the budget (English runs ~4), so a model
            # that fills it still ends within it; the best-scored requirements that fit the context
            budget = self._max_tokens("compose")
            schema = bounded_schema(ComposeReply, {"final_answer": {"maxLength": max(200, int(
                min(budget * 2, MAX_STRING_CHARS) * scale))}},
                                    drop=("requirement_references", "unused_requirements"))
            keep = list(reqs)
            msgs = prompts.compose_messages(question, keep, feedback, schema)
            while len(keep) > 1 and not self._fits(msgs, budget):
                keep.pop()
                msgs = prompts.compose_messages(question, keep, feedback, schema)
            return msgs, schema

        reply = self._ask("compose", request, ComposeReply, self.settings.temperature_draft)
        answer, removed_ids, removed_sentences = drop_invalid_citations(reply.final_answer, valid)
        removed_ids += [r.requirement_id for r in reply.requirement_references
                        if r.requirement_id not in valid and r.requirement_id not in removed_ids]
        removed_ids += [i for i in reply.unused_requirements if i not in valid and i not in removed_ids]
        if removed_ids or removed_sentences:  # reported in the Draft and, via usage(), the audit trail
            note = (f"removed citations of IDs that are not verified evidence: {', '.join(removed_ids) or 'none'}; "
                    f"removed {len(removed_sentences)} sentence(s) citing only those")
            log.info("compose: %s", note)
            self._record_failure("compose", note, reply.final_answer)
        # References are derived from the answer itself, not from the model's own list: the
        # statement for an ID is the (citation-free) answer sentence that first cites it.
        statement: dict[str, str] = {}
        for sentence in split_sentences(answer):
            for i in mentioned_ids(sentence):
                statement.setdefault(i, strip_citations(sentence))
        refs = [RequirementReference(requirement_id=e.requirement_id, used_in_answer=True,
                                     statement=statement[e.requirement_id])
                for e in verified if e.requirement_id in statement]
        used = set(statement)
        return OpenAIDraft(
            final_answer=answer,
            requirement_references=refs,
            unused_requirements=[e.requirement_id for e in verified if e.requirement_id not in used],
            removed_citations=removed_ids,
            removed_sentences=removed_sentences,
        )

    def support(self, sentences: list[str], evidence: list[Evidence]) -> list[SentenceSupport]:
        """Seed 004's validate step; a sentence is supported only if the LLM AND the engine's sentence_support
        say so, judged against the quotes it cites that are in `evidence`."""
        if not sentences:
            return []
        by_id = {e.requirement_id: e for e in evidence}
        cites = [[i for i in mentioned_ids(s) if i in by_id] for s in sentences]
        to_ask = [{"index": i, "text": s, "cites": c} for i, (s, c) in enumerate(zip(sentences, cites, strict=True)) if c]
        verdicts: dict[int, SentenceVerdict] = {}
        for group in self._support_groups(to_ask, by_id):
            got = self._support_call("support", group, by_id)
            asked = {x["index"] for x in group}
            if set(got) != asked and set(got) == {i + 1 for i in asked}:
                got = {k - 1: v for k, v in got.items()}  # the model counted from 1
            verdicts.update({k: v for k, v in got.items() if k in asked})
        out: list[SentenceSupport] = []
        for i, (s, c) in enumerate(zip(sentences, cites, strict=True)):
            if not c:
                out.append(SentenceSupport(text=s, citations=mentioned_ids(s), supported=False,
                                           reason="Cites no verified evidence."))
                continue
            v = verdicts.get(i)
            ok, _score, rule_reason = engine.sentence_support(strip_citations(s), [by_id[x].exact_quote for x in c],
                                                            [by_id[x].document_id for x in c])
            if v is None:
                supported, reason = False, "The model gave no verdict for this sentence."
            elif not v.supported:
                supported, reason = False, f"LLM: {v.reason or 'unsupported'}"
            elif not ok:
                supported, reason = False, f"Rules gate overrode the LLM: {rule_reason}"
            else:
                supported, reason = True, f"LLM: {v.reason or 'supported'}; rules: {rule_reason}"
            out.append(SentenceSupport(text=s, citations=c, supported=supported, reason=reason))
        return out

    def claim_support(self, claim: str, evidence_texts: list[str]) -> tuple[bool, float, str]:
        """The LLM's verdict on a user's claim against retrieved evidence texts, in the shape of
        engine.sentence_support, for `workbench verify --backend openai`. The caller ANDs it with
        its rules verdict, so the LLM can only reject more. No evidence → unsupported, no call."""
        if not evidence_texts:
            return False, 0.0, "No evidence to support this claim."
        ev = [{"requirement_id": f"E{i + 1}", "exact_quote": t} for i, t in enumerate(evidence_texts)]
        sentence = {"index": 0, "text": claim, "cites": [e["requirement_id"] for e in ev]}

        def request(scale: float) -> tuple[list[dict[str, str]], dict[str, Any]]:
            schema = self._support_schema([0], scale)
            keep = list(ev)  # the best evidence first: drop from the end until the prompt fits
            msgs = prompts.support_messages([sentence], keep, schema)
            while len(keep) > 1 and not self._fits(msgs, self._max_tokens("claims")):
                keep.pop()
                msgs = prompts.support_messages([{**sentence, "cites": [e["requirement_id"] for e in keep]}], keep,
                                                schema)
            return msgs, schema

        reply = self._ask("claims", request, SupportReply, self.settings.temperature_validate)
        v = next((x for x in reply.sentences if x.index in (0, 1)), None)
        if v is None:
            return False, 0.0, "LLM: no verdict for the claim."
        return v.supported, 1.0 if v.supported else 0.0, f"LLM: {v.reason or ('supported' if v.supported else 'unsupported')}"

    def _support_schema(self, indexes: list[int], scale: float = 1.0, stage: str = "support") -> dict[str, Any]:
        budget = self._max_tokens(stage)
        per_item = max(60, min(200, budget * int(CHARS_PER_TOKEN) // max(1, len(indexes)) - 60))
        return bounded_schema(SupportReply, {"sentences": {"maxItems": len(indexes)}, "index": {"enum": indexes},
                                             "reason": {"maxLength": max(40, int(per_item * scale))}})

    def _support_request(self, group: list[dict[str, Any]], by_id: dict[str, Evidence], scale: float
                         ) -> tuple[list[dict[str, str]], dict[str, Any]]:
        used = sorted({i for x in group for i in x["cites"]})
        ev = [{"requirement_id": i, "exact_quote": by_id[i].exact_quote} for i in used]
        schema = self._support_schema([x["index"] for x in group], scale)
        return prompts.support_messages(group, ev, schema), schema

    def _support_groups(self, to_ask: list[dict[str, Any]], by_id: dict[str, Evidence]) -> list[list[dict[str, Any]]]:
        """The sentences to check in groups whose prompt (sentences and the quotes they cite) fits
        the model's context with room for the reply; one group when it all fits."""
        groups: list[list[dict[str, Any]]] = []
        for x in to_ask:
            if groups and self._fits(self._support_request([*groups[-1], x], by_id, 1.0)[0], self._max_tokens("support")):
                groups[-1].append(x)
            else:
                groups.append([x])
        return groups

    def _support_call(self, stage: str, group: list[dict[str, Any]], by_id: dict[str, Evidence]
                      ) -> dict[int, SentenceVerdict]:
        reply = self._ask(stage, lambda scale: self._support_request(group, by_id, scale), SupportReply,
                          self.settings.temperature_validate)
        return {v.index: v for v in reply.sentences}

    def _fits(self, messages: list[dict[str, str]], budget: int) -> bool:
        """Do these messages leave `budget` tokens for the reply in the model's context (estimated)?"""
        return self._room(messages) >= budget

    def _room(self, messages: list[dict[str, str]]) -> int:
        """Tokens the model's context leaves for a reply after these messages (estimated, with the
        chat template's per-message overhead)."""
        return self.context_tokens() - sum(estimate_tokens(m["content"]) + 8 for m in messages) - 16

    def usage(self) -> dict[str, StageUsage]:
        with self._lock:
            return {k: v.model_copy(deep=True) for k, v in self._usage.items()}

    # --- verify internals ---------------------------------------------------------------------
    def _verify_one(self, question: str, ev: Evidence) -> tuple[Verification, BackendError | None]:
        if ev.span is None:
            return Verification(requirement_id=ev.requirement_id, verified=False, rejection_reason="quote_not_found",
                                verification_rationale="The quote was not found verbatim in the document.",
                                verifier=VERIFIER), None

        def request(scale: float) -> tuple[list[dict[str, str]], dict[str, Any]]:
            schema = self._verify_schema(scale)
            return prompts.verify_messages(question, ev.requirement_id, ev.exact_quote, ev.section_heading, schema), schema

        try:
            llm = self._ask("verify", request, VerifyReply, self.settings.temperature_validate, label=ev.requirement_id)
        except BackendError as exc:  # already in usage()['verify'].raw_failures
            return Verification(requirement_id=ev.requirement_id, verified=False, rejection_reason="backend_error",
                                verification_rationale=f"The LLM verdict failed: {exc}", verifier=VERIFIER), exc
        q = engine.judge_evidence(question, ev, float(engine.SCORES("relevance", question, [engine.judged_text(ev)],
                                                                    [ev.document_id])[0]), self.settings.judgment)
        return self._combine(ev.requirement_id, llm, q), None

    def _verify_schema(self, scale: float = 1.0) -> dict[str, Any]:
        """The verdict bounded to its budget: a rejection reason from the list, a short rationale."""
        budget = self._max_tokens("verify")
        reasons = sorted(REJECTION_REASONS - {"quote_not_found", "backend_error", "hash_mismatch"})
        return bounded_schema(VerifyReply, {"rejection_reason": {"enum": [*reasons, None]},
                                            "verification_rationale": {"maxLength": max(40, int(min(200, budget - 110)
                                                                                                 * scale))}})

    @staticmethod
    def _combine(requirement_id: str, llm: VerifyReply, gate: engine.QuoteVerdict) -> Verification:
        """The LLM can only reject more: verified only when the LLM and the rules gate agree."""
        llm_score = llm.score if llm.score is not None else (1.0 if llm.verified else 0.0)
        score = round(min(llm_score, float(gate.score)), 4)
        reason = llm.rejection_reason if llm.rejection_reason not in (None, "", "none", "null") else None
        if reason is not None and reason not in REJECTION_REASONS:
            reason = "requires_inference" if "infer" in reason else "does_not_address_question"
        llm_says = llm.verification_rationale.strip() or "(no rationale)"
        if not llm.verified or reason is not None:
            return Verification(requirement_id=requirement_id, verified=False,
                                rejection_reason=reason or "does_not_address_question",
                                verification_rationale=f"LLM rejected: {llm_says} | rules: {gate.rationale}",
                                score=score, verifier=VERIFIER)
        if not gate.verified:
            return Verification(requirement_id=requirement_id, verified=False, rejection_reason=gate.reason,
                                verification_rationale=f"Rules gate overrode the LLM's 'verified': "
                                                       f"{gate.rationale} | LLM: {llm_says}",
                                score=score, verifier=VERIFIER)
        return Verification(requirement_id=requirement_id, verified=True,
                            verification_rationale=f"LLM: {llm_says} | rules: {gate.rationale}",
                            score=score, verifier=VERIFIER)

    @staticmethod
    def _chunk_holding(quote: str, chunks: list[Chunk]) -> Chunk | None:
        q = " ".join(quote.lower().split())
        return next((c for c in chunks if q in " ".join(c.text.lower().split())), None)

    # --- one structured call -----------------------------------------------------------------
    def _ask(self, stage: str, request: Callable[[float], tuple[list[dict[str, str]], dict[str, Any]]],
             model: type[M], temperature: float, label: str = "") -> M:
        """Call, validate; on a malformed reply retry once, then raise BackendError. `request(scale)`
        gives the messages and the reply schema sent; the retry asks for less (scale 0.5: fewer,
        shorter items) with a note on what was wrong, and never carries the failed reply back, so
        a retry is never longer than the first call and stays within the model's context."""
        problem, raw = "", ""
        for attempt, scale in enumerate((1.0, 0.5)):
            msgs, schema = request(scale)
            if attempt:
                msgs = [*msgs, prompts.retry_note(problem)]
            raw, finish = self._complete(stage, msgs, schema, model.__name__, temperature, label)
            problem = self._problem(raw, finish)
            if not problem:
                try:
                    return model.model_validate(json.loads(strip_code_fence(raw), strict=False))  # raw newlines in strings: grammars allow them
                except json.JSONDecodeError as exc:
                    problem = f"invalid JSON: {exc.msg} at char {exc.pos}"
                except ValidationError as exc:
                    first = exc.errors()[0]
                    problem = f"wrong schema: {'.'.join(map(str, first['loc'])) or 'reply'}: {first['msg']}"
            kept = salvage_list(model, raw) if problem.startswith(("truncated", "invalid JSON")) else None
            if kept is not None:  # a small model ran out of tokens mid-list: its complete items still count
                n = len(next(iter(kept.model_dump().values())))
                self._record_failure(stage, f"{label + ': ' if label else ''}{problem}; kept the {n} complete "
                                            f"item(s) before the cut", raw)
                return kept
            log.info("%s: malformed reply (attempt %d): %s", stage, attempt + 1, problem)
            self._record_failure(stage, f"{label}: {problem}" if label else problem, raw)
        raise BackendError(
            f"The model's {stage} reply was unusable after one retry ({problem}); the raw reply is kept in "
            f"the audit trail. Try a model that follows JSON instructions, or --backend rules.",
            raw=raw,
        )

    @staticmethod
    def _problem(raw: str, finish: str | None) -> str:
        if finish == "length":
            return "truncated: the reply hit the token limit (finish_reason=length)"
        if finish in ("refusal", "content_filter"):
            return f"the model refused to answer ({finish})"
        if not raw.strip():
            return "empty reply"
        return ""

    # --- structured output negotiation ----------------------------------------------------------
    @property
    def structured_output(self) -> str:
        """The structured-output form this endpoint is on now (see FORMS)."""
        with _ENDPOINT_LOCK:
            return FORM_NAMES[_ENDPOINT_FORM.get(self._endpoint, 0)]

    @staticmethod
    def _form_kwargs(form: str, schema: dict[str, Any], name: str) -> dict[str, Any]:
        if form == "json_schema":
            return {"response_format": {"type": "json_schema",
                                        "json_schema": {"name": name, "schema": schema, "strict": False}}}
        if form == "json_object+schema":
            return {"response_format": {"type": "json_object", "schema": schema}}
        if form == "json_schema_field":
            return {"extra_body": {"json_schema": schema}}
        if form == "structured_outputs":
            return {"extra_body": {"structured_outputs": {"json": schema}}}
        if form == "guided_json":
            return {"extra_body": {"guided_json": schema}}
        if form == "format":
            return {"extra_body": {"format": schema}}
        if form == "json_object":
            return {"response_format": {"type": "json_object"}}
        return {}

    def _refused_form(self, index: int, exc: openai.APIStatusError) -> bool:
        """Did the server refuse this structured-output form (rather than fail)? Judged by what
        the error body names, since servers differ in status code: 400 (OpenAI, llama-server,
        vLLM, Ollama), 422 (FastAPI validation), 500 (llama-cpp-python's validation errors)."""
        if index >= len(FORMS) - 1 or exc.status_code in (401, 403, 404, 408, 429):
            return False
        text = f"{exc.message} {_body_text(exc)}".lower()
        return any(word in text for word in FORMS[index][1])

    def _next_form(self, index: int, stage: str) -> None:
        with _ENDPOINT_LOCK:
            if _ENDPOINT_FORM.get(self._endpoint, 0) == index:  # another thread may have moved on already
                _ENDPOINT_FORM[self._endpoint] = index + 1
        log.info("%s: %s refused structured output form %s; trying %s", stage, self.shown_url,
                 FORM_NAMES[index], FORM_NAMES[min(index + 1, len(FORMS) - 1)])

    # --- one completion under one deadline -------------------------------------------------------
    def _create(self, kwargs: dict[str, Any]) -> Any:
        """chat.completions.create, retries included, under ONE overall deadline. httpx's timeouts
        are per read, so a server trickling a byte every few seconds would hold the call for as long
        as it likes: the call runs in a worker thread with its own HTTP client, which is closed
        (ending the worker) when the deadline passes."""
        budget = self.settings.llm_timeout
        http = openai.DefaultHttpxClient(timeout=httpx.Timeout(budget, connect=min(budget, 10.0)))
        client = self.client.with_options(http_client=http)
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["resp"] = client.chat.completions.create(**kwargs)
            except BaseException as exc:  # noqa: BLE001 (handed to the caller's thread)
                box["exc"] = exc

        worker = threading.Thread(target=work, name="wb-llm-call", daemon=True)
        worker.start()
        worker.join(budget)
        if worker.is_alive():
            http.close()  # the worker's next read fails; nobody waits for it
            raise _DeadlinePassed
        http.close()
        if "exc" in box:
            raise box["exc"]
        return box["resp"]

    def _complete(self, stage: str, messages: list[dict[str, str]], schema: dict[str, Any], name: str,
                  temperature: float, label: str = "") -> tuple[str, str | None]:
        """One chat completion (the client retries 429/5xx/timeouts itself); errors → BackendError.
        The completion budget is the stage's, less what the prompt leaves of the context; a prompt
        that leaves too little, or that the server says does not fit, raises _ContextOverflow (a
        BackendError) for the caller to shrink."""
        while True:
            with _ENDPOINT_LOCK:
                index = _ENDPOINT_FORM.get(self._endpoint, 0)
            form = FORM_NAMES[index]
            budget, room = self._max_tokens(stage), self._room(messages)
            if room < min(budget, MIN_REPLY_TOKENS):
                raise self._overflow(stage, f"the prompt (~{self.context_tokens() - room} tokens, estimated) leaves "
                                            f"no room for a reply in the model's context of {self.context_tokens()} "
                                            f"tokens", label)
            kwargs: dict[str, Any] = {"model": self.model, "messages": messages, **self._form_kwargs(form, schema, name)}
            if self._send_temperature:
                kwargs["temperature"] = temperature
            if self._send_max_tokens:
                kwargs["max_tokens"] = min(budget, room)
            t0 = time.perf_counter()
            try:
                resp = self._create(kwargs)
            except _DeadlinePassed:
                self._account(stage, time.perf_counter() - t0, form=form)
                raise self._http_error(stage, openai.APITimeoutError(request=httpx.Request("POST", self.base_url)),
                                       label) from None
            except openai.APIStatusError as exc:
                self._account(stage, time.perf_counter() - t0, form=form)
                said = f"{exc.message} {_body_text(exc)}"
                if exc.status_code in (400, 413, 422, 500) and any(w in said.lower() for w in _OVERFLOW_WORDS):
                    n = next((int(m.group(1)) for r in _CTX_SAID if (m := r.search(said))), None)
                    if n and n < self.context_tokens():
                        with _ENDPOINT_LOCK:
                            _ENDPOINT_CTX[self._endpoint] = n
                        log.info("%s: %s says the model's context is %d tokens", stage, self.shown_url, n)
                    raise self._overflow(stage, f"the server says the prompt does not fit the model's context "
                                                f"(HTTP {exc.status_code}: {_short(exc)})", label,
                                         _body_text(exc)) from exc
                if self._refused_form(index, exc):
                    self._record_failure(stage, f"structured output form {form} refused (HTTP {exc.status_code})",
                                         _body_text(exc))
                    self._next_form(index, stage)
                    continue
                said = f"{exc.message} {_body_text(exc)}".lower()
                if isinstance(exc, openai.BadRequestError) and "temperature" in kwargs and "temperature" in said:
                    self._send_temperature = False
                    log.info("%s: model refused the temperature; using its default", stage)
                    continue
                if isinstance(exc, openai.BadRequestError) and "max_tokens" in kwargs and "max_tokens" in said:
                    self._send_max_tokens = False
                    log.info("%s: model refused max_tokens; using its default", stage)
                    continue
                raise self._http_error(stage, exc, label) from exc
            except openai.APIError as exc:
                self._account(stage, time.perf_counter() - t0, form=form)
                raise self._http_error(stage, exc, label) from exc
            u = resp.usage
            self._account(stage, time.perf_counter() - t0,
                          u.prompt_tokens if u and u.prompt_tokens else 0,
                          u.completion_tokens if u and u.completion_tokens else 0, form=form)
            if not resp.choices:
                return "", None
            choice = resp.choices[0]
            refusal = getattr(choice.message, "refusal", None)
            if not choice.message.content and refusal:
                return f"[refusal] {refusal}", "refusal"
            return choice.message.content or "", choice.finish_reason

    def _overflow(self, stage: str, why: str, label: str = "", raw: str | None = None) -> _ContextOverflow:
        self._record_failure(stage, f"{label + ': ' if label else ''}{why}; shrinking the request", raw)
        return _ContextOverflow(f"{stage}: {why}", raw=raw)

    def _max_tokens(self, stage: str) -> int:
        """The stage's completion budget, at most a quarter of the model's context."""
        want = MAX_TOKENS.get(stage, 512)
        ctx = self.context_tokens()
        return max(64, min(want, ctx // 4)) if ctx else want

    # --- the model's context ------------------------------------------------------------------
    def context_tokens(self) -> int:
        """The model's context window: as the server reports it (vLLM's max_model_len in
        /v1/models, llama.cpp's n_ctx in /props or /v1/models meta), else settings.llm_context_tokens.
        Asked once per endpoint per process; the probe is short and failures are quiet."""
        with _ENDPOINT_LOCK:
            if self._endpoint in _ENDPOINT_CTX:
                return _ENDPOINT_CTX[self._endpoint] or self.settings.llm_context_tokens
        found = self._probe_context()
        with _ENDPOINT_LOCK:
            _ENDPOINT_CTX[self._endpoint] = found
        if found:
            log.info("%s: the server reports a context of %d tokens", self.shown_url, found)
        return found or self.settings.llm_context_tokens

    def _probe_context(self) -> int | None:
        if self.base_url.startswith("https://api.openai.com"):
            return None  # documented per model; the setting covers it
        headers = {"Authorization": f"Bearer {self.settings.openai_api_key or PLACEHOLDER_KEY}"}
        base = self.base_url.rstrip("/")
        root = base[:-3] if base.endswith("/v1") else base
        try:
            with httpx.Client(timeout=min(5.0, self.settings.llm_timeout), headers=headers) as http:
                r = http.get(f"{base}/models")
                models = r.json().get("data") if r.status_code == 200 else None
                if isinstance(models, list):
                    mine = [m for m in models if isinstance(m, dict) and (m.get("id") == self.model or len(models) == 1)]
                    n = next((n for n in map(_ctx_from, mine) if n), None)
                    if n:
                        return n
                r = http.get(f"{root}/props")
                if r.status_code == 200:
                    props = r.json()
                    return _ctx_from(props.get("default_generation_settings") or {}) or _ctx_from(props)
        except (httpx.HTTPError, ValueError, TypeError, AttributeError, KeyError) as exc:
            log.debug("context probe of %s failed: %s", self.shown_url, redact(str(exc), self.base_url))
        return None

    def extract_batches(self, question: str | None, chunks: list[Chunk]) -> list[list[Chunk]]:
        """Chunks grouped so that each extract call fits the model's context with room for its
        reply; the pipeline calls extract once per group and reports progress between them."""
        overhead = sum(estimate_tokens(m["content"]) + 8 for m in self._extract_request(question, [], 1.0)[0]) + 16
        room = max(256, self.context_tokens() - self._max_tokens("extract") - overhead)
        batches: list[list[Chunk]] = []
        used = 0
        for c in chunks:
            # the chunk as the prompt fences it (JSON, its id, heading and page) and its id in the schema's enum
            need = estimate_tokens(json.dumps({"chunk_id": c.chunk_id, "section_heading": c.section_heading,
                                               "page": c.page, "text": c.text}, ensure_ascii=False, indent=1)) \
                + estimate_tokens(c.chunk_id) + 2
            if batches and used + need <= room:
                batches[-1].append(c)
                used += need
            else:
                batches.append([c])
                used = need
        return batches

    def _http_error(self, stage: str, exc: openai.APIError, label: str = "") -> BackendError:
        where = f"{self.shown_url} (model {self.model})"
        retries = self.settings.llm_max_retries
        raw = None
        if isinstance(exc, openai.APIStatusError):
            try:
                raw = exc.response.text
            except Exception:  # noqa: BLE001 (a streamed/closed body: keep the message only)
                raw = None
        if isinstance(exc, openai.AuthenticationError):
            msg = f"{where} refused the API key (401): set a valid OPENAI_API_KEY."
        elif isinstance(exc, openai.PermissionDeniedError):
            msg = f"{where} denied access (403): check the key's permissions for this model."
        elif isinstance(exc, openai.NotFoundError):
            msg = (f"{where} answered 404: check WORKBENCH_MODEL names a model the server has, and that "
                   f"OPENAI_BASE_URL ends with /v1.")
        elif isinstance(exc, openai.RateLimitError):
            msg = f"{where} kept rate-limiting (429) after {retries} retries with back-off: wait, or lower WORKBENCH_LLM_MAX_CONCURRENCY."
        elif isinstance(exc, openai.APITimeoutError):
            msg = (f"{where} did not answer within {self.settings.llm_timeout:g} s ({retries} retries): "
                   f"raise WORKBENCH_LLM_TIMEOUT or use a smaller model.")
        elif isinstance(exc, openai.APIConnectionError):
            msg = f"Cannot connect to {where}: is the server running and OPENAI_BASE_URL right?"
        elif isinstance(exc, openai.APIStatusError):
            msg = f"{where} failed with HTTP {exc.status_code} after {retries} retries: {_short(exc)}"
        else:
            msg = f"{where} failed: {_short(exc)}"
        full = f"{stage}: {msg}"
        self._record_failure(stage, f"{label}: {full}" if label else full, raw)
        return BackendError(full, raw=raw)

    # --- usage -------------------------------------------------------------------------------
    def _account(self, stage: str, latency: float, prompt_tokens: int = 0, completion_tokens: int = 0,
                 form: str = "") -> None:
        with self._lock:
            u = self._usage.setdefault(stage, StageUsage())
            u.calls += 1
            u.structured_output = form or u.structured_output
            u.latency_s = round(u.latency_s + latency, 4)
            u.prompt_tokens += prompt_tokens
            u.completion_tokens += completion_tokens

    def _record_failure(self, stage: str, problem: str, raw: str | None) -> None:
        with self._lock:
            u = self._usage.setdefault(stage, StageUsage())
            u.raw_failures.append(f"{problem} | raw: {(raw or '')[:2000]}")


class _ContextOverflow(BackendError):
    """A request does not fit the model's context (estimated before sending, or said by the
    server): extract shrinks it and asks again; elsewhere it is the stage's BackendError."""


class _DeadlinePassed(Exception):
    """A call ran past settings.llm_timeout, its one overall deadline."""


def _body_text(exc: openai.APIStatusError) -> str:
    try:
        return exc.response.text
    except Exception:  # noqa: BLE001 (a streamed or closed body)
        return str(getattr(exc, "body", "") or "")


def _ctx_from(d: dict[str, Any]) -> int | None:
    """A context size from a server's model/props record (vLLM, llama.cpp, LM Studio spellings)."""
    meta = d.get("meta") if isinstance(d.get("meta"), dict) else {}
    for v in (d.get("max_model_len"), d.get("n_ctx"), meta.get("n_ctx"), d.get("context_length"),
              d.get("max_context_length"), meta.get("n_ctx_train")):
        if isinstance(v, int) and v > 0:
            return v
    return None


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]


