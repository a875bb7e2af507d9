"""The base agent (base.py) with `Bugs.answers_extension_methods`, which is not a bug: unknown
`_`-prefixed requests are answered with a result (ACP only says agents "should" answer -32601)."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(answers_extension_methods=True))
