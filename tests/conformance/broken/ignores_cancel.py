"""The base agent (base.py) with one bug: `Bugs.ignores_cancel`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(ignores_cancel=True))
