"""The base agent (base.py) with one bug: `Bugs.update_with_id`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(update_with_id=True))
