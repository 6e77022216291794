"""Test doubles for the pipeline: a retriever that returns every page as a chunk (so tests
do not depend on ranking), and backends that misbehave in scripted ways."""

from __future__ import annotations

from workbench.backends.rules import RulesBackend
from workbench.models import Candidate, Chunk, Draft, Evidence, Verification

# A two-page policy: three remote-access requirements, a non-requirement, three retention rules.
POLICY = [
    "Remote Access Policy\n\n"
    "Employees must use the approved virtual private network for every remote access session to company "
    "systems. Remote access sessions shall be terminated automatically after thirty minutes of inactivity. "
    "The IT department is responsible for reviewing remote access logs every week for unusual activity. "
    "The office cafeteria opens at eight in the morning on weekdays.",
    "Data Retention\n\n"
    "Records of customer transactions must be retained for at least seven years after the account is closed. "
    "Contractors may not copy customer records to personal storage devices under any circumstances. "
    "Paper records shall be shredded when they are no longer needed for business purposes.",
]
REMOTE_Q = "What must employees do for remote access sessions?"
OFF_TOPIC_Q = "What is the airspeed velocity of an unladen swallow?"


class PagesRetriever:
    """Every page of every document as one chunk, in reading order."""

    def __init__(self) -> None:
        self.calls = 0

    def retrieve(self, question, docs, top_k=None) -> list[Chunk]:
        self.calls += 1
        return [Chunk(chunk_id=f"{d.document.id[:8]}-p{p.number}", document_id=d.document.id, start=p.start,
                      end=p.end, text=d.text[p.start:p.end], page=p.number)
                for d in docs for p in d.pages if p.end > p.start]


class FabricatingBackend(RulesBackend):
    """Rules extraction plus one quote that is not in the document (an LLM's paraphrase)."""

    fabricated = "Every operator must file a quarterly safety report with the national aviation registry office."

    def extract(self, question, chunks, context) -> list[Candidate]:
        out = super().extract(question, chunks, context)
        return out + [Candidate(exact_quote=self.fabricated, chunk_id=chunks[0].chunk_id, document_id=chunks[0].document_id)]

    def verify(self, question, evidence: list[Evidence]) -> list[Verification]:
        # a verifier that believes everything: the pipeline must still never verify the fabrication
        return [Verification(requirement_id=e.requirement_id, verified=True, verification_rationale="trusting",
                             score=0.9) for e in evidence]


class ScriptedComposeBackend(RulesBackend):
    """Rules everywhere except compose, which returns the scripted answers in turn (the last
    one repeats) and records the feedback it was given."""

    def __init__(self, settings, answers: list[str]):
        super().__init__(settings)
        self.answers = answers
        self.feedback: list[list[str] | None] = []

    def compose(self, question, verified, feedback=None) -> Draft:
        self.feedback.append(feedback)
        text = self.answers[min(len(self.feedback) - 1, len(self.answers) - 1)]
        first = verified[0].requirement_id
        return Draft(final_answer=text.replace("{ID}", first),
                     unused_requirements=[e.requirement_id for e in verified if e.requirement_id != first])
