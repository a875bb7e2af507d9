"""The base agent (base.py) with one bug: `Bugs.logs_to_stdout`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(logs_to_stdout=True))
