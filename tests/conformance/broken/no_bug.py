"""The base agent (base.py) with no bug: the fixtures' control, which fails no case."""

from base import Bugs, serve

serve(Bugs())
