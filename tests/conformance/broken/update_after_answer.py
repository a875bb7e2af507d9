"""The base agent (base.py) with one bug: `Bugs.update_after_answer`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(update_after_answer=True))
