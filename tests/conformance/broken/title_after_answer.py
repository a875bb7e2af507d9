"""The base agent (base.py) titling the session after each prompt's answer
(`Bugs.title_after_answer`, not a bug: a `session_info_update` is the session's, not the turn's)."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(title_after_answer=True))
