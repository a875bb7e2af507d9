"""The base agent (base.py) with one bug: `Bugs.cancels_early`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(cancels_early=True))
