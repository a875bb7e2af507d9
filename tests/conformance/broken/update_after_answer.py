"""The base agent (base.py) with one bug: `Bugs.update_after_answer`."""

from base import Bugs, serve

serve(Bugs(update_after_answer=True))
