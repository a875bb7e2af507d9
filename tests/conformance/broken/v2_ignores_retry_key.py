"""The v2 base agent (base_v2.py) with one bug: `Bugs.ignores_retry_key`."""

from tests.conformance.broken.base_v2 import Bugs, serve

serve(Bugs(ignores_retry_key=True))
