"""The base agent (base.py) with one bug: `Bugs.answers_late_cancel`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(answers_late_cancel=True))
