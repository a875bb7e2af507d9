"""The v2 base agent (base_v2.py) without a bug: it fails no case."""

from tests.conformance.broken.base_v2 import Bugs, serve

serve(Bugs())
