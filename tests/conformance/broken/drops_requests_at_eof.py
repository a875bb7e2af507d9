"""The base agent (base.py) with one bug: `Bugs.drops_requests_at_eof`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(drops_requests_at_eof=True))
