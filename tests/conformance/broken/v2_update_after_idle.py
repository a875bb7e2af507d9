"""The v2 base agent (base_v2.py) with one bug: `Bugs.update_after_idle`."""

from tests.conformance.broken.base_v2 import Bugs, serve

serve(Bugs(update_after_idle=True))
