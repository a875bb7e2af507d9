"""The base agent (base.py) with one bug: `Bugs.advertises_unserved`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(advertises_unserved=True))
