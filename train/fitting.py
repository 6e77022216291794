"""Small numpy fitting helpers the offline fitters share (train/fit_lexical.py, train/doc_decision.py):
a logistic regression and ROC AUC, without scikit-learn in the product's environment."""

from __future__ import annotations

import numpy as np


def logistic(X: np.ndarray, y: np.ndarray, l2: float = 1e-3, iters: int = 4000, lr: float = 0.5):
    """Logistic regression (standardised features, L2); weights on the raw scale."""
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = (X - mu) / sd
    w, b = np.zeros(Z.shape[1]), 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(Z @ w + b)))
        g = p - y
        w -= lr * (Z.T @ g / len(y) + l2 * w)
        b -= lr * float(g.mean())
    return w / sd, float(b - (mu / sd) @ w)


def auc(y: np.ndarray, s: np.ndarray) -> float:
    """ROC AUC of scores `s` for labels `y` (1 = positive), ties broken by order."""
    order = np.argsort(s, kind="stable")
    ranks = np.empty(len(s))
    ranks[order] = np.arange(1, len(s) + 1)
    pos = y == 1
    return float((ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / max(pos.sum() * (~pos).sum(), 1))
