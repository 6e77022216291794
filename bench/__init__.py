"""Benchmarks: run each as `.venv/bin/python -m bench.<name>`; figures go to BENCHMARKS.md."""
