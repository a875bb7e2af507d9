"""The base agent (base.py) with one bug: `Bugs.advertises_unserved`."""

from base import Bugs, serve

serve(Bugs(advertises_unserved=True))
