"""The v2 base agent (base_v2.py) with one bug: `Bugs.no_replay_complete`."""

from tests.conformance.broken.base_v2 import Bugs, serve

serve(Bugs(no_replay_complete=True))
