"""The base agent (base.py) with one bug: `Bugs.ignores_cancel`."""

from base import Bugs, serve

serve(Bugs(ignores_cancel=True))
