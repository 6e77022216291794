"""The offline MiniLM embedder: unit vectors, deterministic, meaningful, no 128-token cap."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.index.embed import DIM, Embedder, tokenizer_path


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder(threads=1, batch_size=4)


def test_embeddings_are_unit_float32_rows_in_input_order(embedder):
    texts = ["The tenant shall pay rent monthly.", "Short.", "A somewhat longer sentence about the weather today."]
    v = embedder.embed(texts)
    assert v.shape == (3, DIM) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    # Batching sorts by length internally; each row must still belong to its own text.
    for i, t in enumerate(texts):
        assert float(v[i] @ embedder.embed([t])[0]) > 0.999


def test_embeddings_are_deterministic(embedder):
    texts = ["Records must be retained for seven years."] * 2 + ["Other text."]
    a, b = embedder.embed(texts), embedder.embed(texts)
    np.testing.assert_allclose(a, b, atol=1e-6)
    assert float(a[0] @ a[1]) > 0.9999


def test_paraphrases_are_closer_than_unrelated_sentences(embedder):
    v = embedder.embed([
        "The contractor shall encrypt all data stored on its servers.",
        "Data at rest must be protected with encryption by the supplier.",
        "Bananas are a good source of potassium.",
    ])
    assert v[0] @ v[1] > v[0] @ v[2] + 0.3


def test_no_texts_gives_an_empty_matrix(embedder):
    assert embedder.embed([]).shape == (0, DIM)


def test_long_texts_are_truncated_at_256_tokens_not_128(embedder):
    head = "The licensee shall keep the software confidential. " * 14  # about 130 tokens
    a = embedder.embed([head + "Payment is due within thirty days of invoice."])[0]
    b = embedder.embed([head + "Pets are not allowed in the building at any time."])[0]
    # With the file's own 128-token truncation both tails would be cut and the vectors identical.
    assert float(a @ b) < 0.9999
    very_long = embedder.embed(["word " * 2000])
    assert very_long.shape == (1, DIM)


def test_counts_the_texts_it_embeds():
    e = Embedder(threads=1, batch_size=2)
    e.embed(["a", "b", "c"])
    assert (e.calls, e.texts_embedded) == (1, 3)


def test_tokenizer_ships_with_its_licence_notice():
    path = tokenizer_path()
    assert path.is_file()
    notice = (path.parent / "NOTICE").read_text()
    assert "Apache License, Version 2.0" in notice


def test_word_vectors_read_each_word_in_its_sentence(embedder):
    """One unit vector per word (word pieces averaged), the words as written, lowercased: a clause's
    "construed" sits nearer a question's "interpreted" than its "Virginia" does."""
    [(words, v), (qwords, qv), (empty_words, ev)] = embedder.word_vectors(
        ["This Agreement shall be construed under the laws of Virginia.",
         "How is the contract interpreted?", ""])
    assert words == ["this", "agreement", "shall", "be", "construed", "under", "the", "laws", "of", "virginia", "."]
    assert v.shape == (len(words), DIM) and np.allclose(np.linalg.norm(v.astype(np.float32), axis=1), 1, atol=1e-2)
    sims = v.astype(np.float32) @ qv[qwords.index("interpreted")].astype(np.float32)
    assert sims[words.index("construed")] > sims[words.index("virginia")]
    assert empty_words == [] and ev.shape == (0, DIM)
