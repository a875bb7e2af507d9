"""The base agent (base.py) with one bug: `Bugs.invalid_params_without_where`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(invalid_params_without_where=True))
