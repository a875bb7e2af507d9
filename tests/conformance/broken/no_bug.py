"""The base agent (base.py) with no bug: the fixtures' control, which fails no case."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs())
