"""Page numbers as a reader writes them: [1, 2, 3, 7] -> "1-3, 7"."""

from __future__ import annotations

from collections.abc import Sequence


def page_ranges(nums: Sequence[int]) -> str:
    """Distinct numbers in order, runs joined: [1, 2, 3, 7] -> '1-3, 7'; [] -> ''."""
    runs: list[list[int]] = []
    for n in sorted(set(nums)):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(f"{a}-{b}" if b != a else f"{a}" for a, b in runs)
