"""The Redis queue fixture the table CLI test shares with the job tests."""

from tests.jobs.conftest import queue_env  # noqa: F401 - a fixture, used by name
