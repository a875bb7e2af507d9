"""The base agent (base.py) with one bug: `Bugs.updates_unknown_session`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(updates_unknown_session=True))
