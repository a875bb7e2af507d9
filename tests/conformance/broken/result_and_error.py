"""The base agent (base.py) with one bug: `Bugs.result_and_error`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(result_and_error=True))
