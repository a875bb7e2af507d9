"""The base agent (base.py) answering every prompt at once (`Bugs.fast_answers`, not a bug): a
correct agent the cancel cases cannot catch running, so they skip, saying why."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(fast_answers=True))
