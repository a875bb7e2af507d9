"""The base agent (base.py) with one bug: `Bugs.answers_notifications`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(answers_notifications=True))
