"""The base agent (base.py) with one bug: `Bugs.plan_without_capability`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(plan_without_capability=True))
