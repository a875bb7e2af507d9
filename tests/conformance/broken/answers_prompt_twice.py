"""The base agent (base.py) with one bug: `Bugs.answers_prompt_twice`."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(answers_prompt_twice=True))
