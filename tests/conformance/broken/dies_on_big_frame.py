"""The base agent (base.py) with one bug: `Bugs.dies_on_big_frame`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(dies_on_big_frame=True))
