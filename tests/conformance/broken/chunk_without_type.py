"""The base agent (base.py) with one bug: `Bugs.chunk_without_type`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(chunk_without_type=True))
